"""The records of ``git grep -n -z``, read as git writes them."""

from __future__ import annotations

import re

_BINARY = re.compile(rb"Binary file (.+) matches\n")


def grep_records(data: bytes) -> list[tuple[bytes, bytes | None, bytes]]:
    """``(path, number, line)`` of each record of ``git grep -n -z``: path NUL number NUL
    line LF, a path as it is (no quoting), so a path may hold a newline: then the records
    are read one by one.  A binary file's record is ``Binary file PATH matches`` LF: its
    number is ``None``."""
    out: list[tuple[bytes, bytes | None, bytes]] = []
    for record in data.split(b"\n")[:-1]:
        r = record.split(b"\0", 2)
        if len(r) == 3 and r[1].isdigit():
            out.append((r[0], r[1], r[2]))
        elif len(r) == 1 and record.startswith(b"Binary file ") and record.endswith(b" matches"):
            out.append((record[12:-8], None, b""))
        else:  # a path with a newline: record by record
            return _one_by_one(data)
    return out


def _one_by_one(data: bytes) -> list[tuple[bytes, bytes | None, bytes]]:
    out: list[tuple[bytes, bytes | None, bytes]] = []
    pos, size = 0, len(data)
    while pos < size:
        binary = _BINARY.match(data, pos)
        if binary is not None and b"\0" not in binary.group(1):
            out.append((binary.group(1), None, b""))
            pos = binary.end()
            continue
        end_path = data.find(b"\0", pos)
        end_number = data.find(b"\0", end_path + 1) if end_path >= 0 else -1
        end = data.find(b"\n", end_number + 1) if end_number >= 0 else -1
        if end < 0:
            break
        number = data[end_path + 1:end_number]
        if number.isdigit():
            out.append((data[pos:end_path], number, data[end_number + 1:end]))
        pos = end + 1
    return out
