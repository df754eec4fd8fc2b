"""numpy's PCG64 and `Generator.shuffle` in numba, bit-exact, for the kernels of `FantastiqaVector`.

A reshuffling draw (Q-X1) or a reshuffle token (Q-F4) shuffles a seat's cards with the seat's own
Generator (`fantastiqa_rl.chance`: a `numpy.random.Generator` over `PCG64`). The kernels cannot call
a Generator, so `FantastiqaVector.step` hands a kernel the Generator's state as 6 uint64 words
(`read`), the kernel shuffles with that state exactly as `Generator.shuffle` does, and the state it
leaves is written back into the Generator (`write`). The Generators stay the one source of chance:
the kernel only ever holds a copy of one for the length of a step.

`Generator.shuffle(x)` (numpy/random/_generator.pyx) swaps x[t] with x[random_interval(t)] for t
from len(x) - 1 down to 1; `random_interval(max)` (numpy/random/src/distributions) draws
`next_uint32 & mask` (mask: max with every lower bit set) until the value is <= max; PCG64's
`next_uint32` returns the low half of a fresh 64-bit output and keeps the high half for the next
call (`has_uint32`, `uinteger`); a 64-bit output is the XSL-RR of the 128-bit LCG state after one
step (state = state * MULT + inc). tests/test_fantastiqa_vector_chance.py compares every output, the
shuffled orders and the states left with numpy's over many states and lengths.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fantastiqa_rl.vector_state import kernel

# the state words
ST_HI, ST_LO, INC_HI, INC_LO, HAS32, UINT32 = range(6)
STATE_WORDS = 6
_MULT_HI = np.uint64(0x2360ED051FC65DA4)       # PCG_DEFAULT_MULTIPLIER_128
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_M32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U1 = np.uint64(1)
_U0 = np.uint64(0)
_MASK64 = (1 << 64) - 1


def read(gen: np.random.Generator) -> np.ndarray:
    """The 6 state words of a PCG64 Generator."""
    d = gen.bit_generator.state
    if d["bit_generator"] != "PCG64":
        raise ValueError(f"the batched engine draws only from PCG64 Generators; got {d['bit_generator']}")
    s, inc = d["state"]["state"], d["state"]["inc"]
    return np.array([s >> 64, s & _MASK64, inc >> 64, inc & _MASK64, d["has_uint32"], d["uinteger"]],
                    dtype=np.uint64)


def write(gen: np.random.Generator, st: np.ndarray) -> None:
    """Set a PCG64 Generator to the 6 state words `st`."""
    hi, lo, ihi, ilo, has, u = (int(x) for x in st)
    gen.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": (hi << 64) | lo, "inc": (ihi << 64) | ilo},
                               "has_uint32": has, "uinteger": u}


@njit(cache=True, inline="always")
def _mul(a, b):
    """The 128-bit product of two uint64, as (high, low) words."""
    a_lo, a_hi = a & _M32, a >> _U32
    b_lo, b_hi = b & _M32, b >> _U32
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    mid = (p0 >> _U32) + (p1 & _M32) + (p2 & _M32)
    return p3 + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32), (p0 & _M32) | (mid << _U32)


@kernel
def next64(st):
    """PCG64's next 64-bit output (pcg_setseq_128_xsl_rr_64_random_r): step the state, then XSL-RR."""
    hi, lo = st[ST_HI], st[ST_LO]
    h0, l0 = _mul(lo, _MULT_LO)
    nhi = hi * _MULT_LO + lo * _MULT_HI + h0
    nlo = l0 + st[INC_LO]
    carry = _U1 if nlo < l0 else _U0
    nhi = nhi + st[INC_HI] + carry
    st[ST_HI], st[ST_LO] = nhi, nlo
    v = nhi ^ nlo
    rot = nhi >> _U58
    return (v >> rot) | (v << ((_U0 - rot) & _U63))


@kernel
def next32(st):
    """PCG64's next_uint32: the buffered high half of the last output, else the low half of a new one."""
    if st[HAS32]:
        st[HAS32] = _U0
        return st[UINT32]
    v = next64(st)
    st[HAS32] = _U1
    st[UINT32] = v >> _U32
    return v & _M32


@kernel
def random_interval(st, mx):
    """numpy's random_interval(bitgen, max) for max < 2**32: a uniform int in [0, max]."""
    if mx == 0:
        return 0
    m = np.uint64(mx)
    mask = m
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    while True:
        v = next32(st) & mask
        if v <= m:
            return np.int64(v)


@kernel
def shuffle(c, i, base, n, st):
    """c[i, base:base + n] shuffled in place exactly as `Generator.shuffle` shuffles that list."""
    for t in range(n - 1, 0, -1):
        j = random_interval(st, t)
        c[i, base + t], c[i, base + j] = c[i, base + j], c[i, base + t]
