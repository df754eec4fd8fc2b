"""The code blocks of README's "Use with OpenSpiel / TorchRL / Tianshou" section run as written."""
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def section_blocks() -> list[str]:
    text = README.read_text()
    start = text.index("## Use with OpenSpiel / TorchRL / Tianshou")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_section_has_one_block_per_library():
    blocks = section_blocks()
    assert len(blocks) == 3
    assert [("pyspiel" in b, "torchrl" in b, "tianshou" in b) for b in blocks] == [
        (True, False, False), (False, True, False), (False, False, True)]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("index,module", [(0, "pyspiel"), (1, "torchrl"), (2, "tianshou")])
def test_readme_block_runs(index, module, capsys):
    pytest.importorskip(module)
    exec(compile(section_blocks()[index], f"README block {index}", "exec"), {})
    assert capsys.readouterr().out.strip()
