"""ghost_euchre.plumbing.files.write_atomic: whole-file replacement with the usual permissions."""

import os
import stat

import pytest

from ghost_euchre.plumbing.files import check_writable, current_umask, write_atomic


def test_write_atomic_text_and_binary_with_usual_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        target = tmp_path / "new" / "dir" / "out.txt"
        assert write_atomic(target, lambda f: f.write("héllo\n")) == target
        assert target.read_text(encoding="utf-8") == "héllo\n"
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        write_atomic(target, lambda f: f.write(b"\x00\x01"), binary=True)
        assert target.read_bytes() == b"\x00\x01"
    finally:
        os.umask(old)
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_write_atomic_failure_keeps_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("old")

    def broken(handle):
        handle.write("half")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_atomic(target, broken)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_check_writable_names_the_problem_and_creates_nothing(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    # the nearest existing directory: missing ones would be created by the write
    assert check_writable(tmp_path / "missing" / "dirs" / "out.json") == str(tmp_path)
    assert check_writable(a_file) == str(tmp_path)  # an existing file is replaced
    with pytest.raises(ValueError, match=r"cannot write --csv '.*': it is a directory"):
        check_writable(tmp_path, "--csv")
    with pytest.raises(ValueError, match=r"file\.txt' is not a directory"):
        check_writable(a_file / "x" / "out.json")
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]
