"""Reading a submitted kernel file for `python -m pysim run`, safely on a folder of students' files.

A teacher grades a folder in a loop (README), so a submission is hostile input: a FIFO would block the
read forever, a symbolic link could point at /dev/zero (read until memory runs out) or at another
student's file, and a 200 MB file would be read whole before the size check. The file is opened
without following a final symbolic link and without blocking, must be a regular file, and is read up
to one byte past what a playground file may hold.
"""

from __future__ import annotations

import errno
import os
import stat

from .play.limits import MAX_SOURCE_BYTES


class SubmissionError(Exception):
    """A file `run` refuses before reading it as code; the message names what is wrong."""


def read_submission(path: str) -> str:
    """The file's text, or SubmissionError naming why it cannot be a playground file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SubmissionError("is a symbolic link; give the file itself") from None
        raise SubmissionError(f"cannot open the file ({error.strerror})") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise SubmissionError("is not a regular file (a folder, FIFO or device cannot be a kernel file)")
    with os.fdopen(descriptor, "rb") as handle:
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(
            f"is over {MAX_SOURCE_BYTES:,} bytes; a playground file holds at most that (as a link does)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SubmissionError(f"is not UTF-8 text (byte {error.start})") from None
