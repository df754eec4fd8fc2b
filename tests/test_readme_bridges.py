"""README's "Use with OpenSpiel / TorchRL / Tianshou" section has one code block per library, each
fenced `needs=<library>` so that tests/test_readme.py runs it alone where the library is installed
and says why it skips it where not."""
import re

from tests.test_readme import README, readme_blocks


def section_text() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("### Use with OpenSpiel / TorchRL / Tianshou")
    end = re.compile(r"^#{1,3} ", re.M).search(text, start + 1).start()
    return text[start:end]


def test_the_section_has_one_block_per_library_each_fenced_with_its_needs():
    blocks = readme_blocks(section_text())
    assert [b.needs for b in blocks] == [("pyspiel",), ("torchrl",), ("tianshou",)]
    assert [("pyspiel" in b.code, "torchrl" in b.code, "tianshou" in b.code) for b in blocks] == [
        (True, False, False), (False, True, False), (False, False, True)]
