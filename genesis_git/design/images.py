"""Width and height of a PNG or JPEG from its header; no pixel is decoded."""

from __future__ import annotations

import struct

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def image_info(data: bytes) -> tuple[str, int, int] | None:
    """``(ext, width, height)`` with ext ``png`` or ``jpg``; ``None`` for anything else."""
    if data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return "png", width, height
    if data[:2] == b"\xff\xd8":
        size = _jpeg_size(data)
        if size is not None:
            return "jpg", size[0], size[1]
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(data)
    while i + 3 < n:
        if data[i] != 0xFF:
            return None
        while i < n and data[i] == 0xFF:  # fill bytes
            i += 1
        if i >= n:
            return None
        marker = data[i]
        i += 1
        if marker == 0x01 or 0xD0 <= marker <= 0xD9:
            continue
        if i + 2 > n:
            return None
        (length,) = struct.unpack(">H", data[i:i + 2])
        if marker in _SOF:
            if i + 7 > n:
                return None
            height, width = struct.unpack(">HH", data[i + 3:i + 7])
            return width, height
        i += length
    return None
