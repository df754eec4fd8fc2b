"""Fae's rule options, each declared once (`tabletop_rl.options.Option`): `FaeState` validates with
them, `fae_rl.env`'s docstring lists them, the CLIs' help and the web form read them."""
from __future__ import annotations

import functools

import numpy as np

from tabletop_rl import options as tabletop_options
from tabletop_rl.options import Option


def _bool(v) -> str | None:
    return None if isinstance(v, (bool, np.bool_)) else "must be True or False"


RULE_OPTIONS = (
    Option("big_stack_merge", (False, True), "F-T4", "The Clans rule (off in Fae's text): a stack of 7 or more "
           "druids may move onto an adjacent space holding at least as many.", check=_bool),
)


# check_option(name, value): ValueError if `value` is not allowed for the rule option `name`
check_option = functools.partial(tabletop_options.check_option, RULE_OPTIONS)


__all__ = ["RULE_OPTIONS", "check_option"]
