"""`shown(value)`: a short repr of untrusted input for error messages.

A loader's error names the bad value, but `repr` of a value from a file is unbounded: a
10,000-deep list raises RecursionError inside the message, a 1 MB string fills the terminal.
This repr stops at a few levels, entries and characters."""
from __future__ import annotations

import reprlib

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def shown(value) -> str:
    """repr(value), cut to a few levels, entries and characters."""
    return _REPR.repr(value)
