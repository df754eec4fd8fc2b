"""benchmarks/package_lines.py: the per-package line report issue 38 asks for."""
from benchmarks.package_lines import PACKAGES, code_lines, counts_at, counts_in_tree


def test_code_lines_skip_blanks_and_comments_but_count_docstrings():
    assert code_lines('"""Doc."""\n\n# a comment\n   # indented comment\nx = 1  # trailing\n\n') == 2
    assert code_lines("") == 0


def test_the_tree_and_a_commit_are_counted_alike():
    now = counts_in_tree()
    assert set(now) == set(PACKAGES) and all(now[p] > 0 for p in ("fae_rl", "fantastiqa_rl", "envs", "agents"))
    head = counts_at("HEAD")  # the committed tree: equal wherever the working tree has no change in the package
    assert head["fantastiqa_rl"] > 1000 and set(head) == set(PACKAGES)
