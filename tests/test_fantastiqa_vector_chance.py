"""fantastiqa_rl.vector_chance: numpy's PCG64 and Generator.shuffle in numba, bit-exact (the batched
engine's reshuffles, Q-X1 / Q-F4, must draw exactly what the scalar core's Generators draw)."""
import numpy as np
import pytest

from fantastiqa_rl import vector_chance as CH


def _gens(count, seed=0):
    """Generators as the game makes them (spawned from a SeedSequence), some mid-way through a 32-bit pair."""
    out = []
    for j, ss in enumerate(np.random.SeedSequence(seed).spawn(count)):
        g = np.random.Generator(np.random.PCG64(ss))
        g.integers(0, 10, size=j % 3)          # leaves has_uint32 set for some of them
        out.append(g)
    return out


def test_the_state_words_round_trip():
    for g in _gens(6):
        st = CH.read(g)
        h = np.random.Generator(np.random.PCG64(0))
        CH.write(h, st)
        assert h.bit_generator.state == g.bit_generator.state


def test_next64_and_next32_are_pcg64s_outputs():
    for g in _gens(4, seed=3):
        st = CH.read(g)
        bg = g.bit_generator
        for _ in range(50):
            assert CH.next64(st) == bg.random_raw()
        st = CH.read(g)
        ref = np.random.Generator(np.random.PCG64(0))
        ref.bit_generator.state = g.bit_generator.state
        # numpy's 32-bit draws through the buffered pair: integers over [0, 2**32 - 1] use next_uint32 unmasked
        ours = [int(CH.next32(st)) for _ in range(41)]
        theirs = ref.integers(0, 2**32, size=41, dtype=np.uint32).tolist()
        assert ours == theirs


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 17, 40, 64, 207])
def test_shuffle_matches_generator_shuffle_on_a_list_and_leaves_the_same_state(length):
    for g in _gens(8, seed=length):
        items = list(range(100, 100 + length))
        c = np.zeros((2, 300), dtype=np.uint8)
        c[1, 7:7 + length] = [x % 256 for x in items]
        st = CH.read(g)
        CH.shuffle(c, 1, 7, length, st)
        g.shuffle(items)
        assert c[1, 7:7 + length].tolist() == [x % 256 for x in items]
        assert CH.read(g).tolist() == st.tolist()


def test_a_wrong_shuffle_is_detected():
    """Control: a shuffle that draws one value too many is caught by the same comparison."""
    g = _gens(1, seed=9)[0]
    items = list(range(30))
    c = np.zeros((1, 30), dtype=np.uint8)   # the rows' type of the test above: no second compile of shuffle
    c[0] = items
    st = CH.read(g)
    CH.next32(st)
    CH.shuffle(c, 0, 0, 30, st)
    g.shuffle(items)
    assert c[0].tolist() != items


def test_only_pcg64_is_taken():
    with pytest.raises(ValueError, match="PCG64"):
        CH.read(np.random.Generator(np.random.MT19937(0)))
