"""Writing a file atomically: an interrupted or failed write never leaves a half-written file.

The output goes to a temporary file in the target's folder (nameless on Linux, so that even
SIGKILL leaves nothing), which replaces the target in one rename only when the write has finished
and is synced. The command line's outputs and :func:`polarscore.reporting.write_report` write
this way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from polarscore.exceptions import OutputFileError


def check_target(
    target: Path,
    *,
    overwrite: bool,
    inputs: Sequence[Path] = (),
    overwrite_option: str = "overwrite=True",
) -> None:
    """Fail early when ``target`` cannot or must not be written.

    That is when it is a directory, exists (without ``overwrite``), is one of the ``inputs``
    (even with ``overwrite``: a scored log never replaces the log it was read from), or its
    folder is missing, not a folder, or not writable. ``overwrite_option`` is how the caller's
    user asks to replace a file (the command line passes its flag), named in the hint.
    """
    if target.is_dir():
        raise OutputFileError(f"The output {str(target)!r} is a directory.")
    if target.exists():
        for source in inputs:
            if _same_file(target, source):
                raise OutputFileError(
                    f"The output {str(target)!r} is also an input ({str(source)!r}).\n"
                    "Hint: write the scored log to another path."
                )
        if not overwrite:
            raise OutputFileError(
                f"The output file {str(target)!r} already exists.\n"
                f"Hint: pass {overwrite_option} to replace it."
            )
    folder = target.parent
    if not folder.exists():
        raise OutputFileError(f"The output folder {str(folder)!r} does not exist.")
    if not folder.is_dir():
        raise OutputFileError(f"The output folder {str(folder)!r} is not a folder.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"The output folder {str(folder)!r} is not writable.")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


#: ``O_TMPFILE`` (Linux): a file with no name until it is linked in, so that nothing at all is
#: left behind by a run killed with SIGKILL or the OOM killer. Other systems and file systems
#: without it use a hidden named temporary file, removed on any exception but not on SIGKILL.
_O_TMPFILE: int | None = getattr(os, "O_TMPFILE", None)
_PROC_FD = Path("/proc/self/fd")


def _unnamed_file(folder: Path) -> int | None:
    """Open a nameless file in ``folder``; ``None`` where the system cannot."""
    if _O_TMPFILE is None or not _PROC_FD.is_dir():
        return None
    try:
        return os.open(folder, _O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o666)
    except PermissionError:
        raise
    except OSError:  # EOPNOTSUPP, EISDIR, EINVAL: the file system or kernel lacks O_TMPFILE
        return None


def leaves_nothing_when_killed(folder: Path) -> bool:
    """Whether a write into ``folder`` leaves no trace if the process is killed outright."""
    handle = _unnamed_file(folder)
    if handle is None:
        return False
    os.close(handle)
    return True


#: The errors of a write that ran out of room: a full disk, a full quota, or the file-size limit
#: (``ulimit -f``). Reading never fails this way, so they always mean the output.
_NO_ROOM = frozenset(
    code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EFBIG) if code
)
#: How Polars' writers end the message of an operating-system error (they set no ``errno``).
_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def out_of_room(target: Path, error: BaseException) -> OutputFileError | None:
    """Return the one-line error naming ``target`` when ``error`` is a write out of room, else None.

    ``error`` is an ``OSError`` from Python's own writes (or the sync and rename), or a Polars
    error whose message carries the operating-system error as ``(os error N)``.
    """
    code = error.errno if isinstance(error, OSError) else None
    if code is None:
        found = _OS_ERROR.search(str(error))
        code = int(found.group(1)) if found else None
    if code is None or code not in _NO_ROOM:
        return None
    return OutputFileError(
        f"Cannot write the output {str(target)!r}: {os.strerror(code)} "
        "(the disk, the quota or the file-size limit is full); any previous output is unchanged."
    )


def _write_failure(folder: Path, error: OSError) -> OutputFileError:
    reason = error.strerror or type(error).__name__
    return OutputFileError(f"Cannot write in the output folder {str(folder)!r}: {reason}.")


@contextlib.contextmanager
def atomic_target(target: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``target`` in one rename.

    The temporary file is nameless where the system allows (``O_TMPFILE``; the path yielded is
    its ``/proc/self/fd`` entry) and is given a name beside ``target`` only once complete and
    synced, for the instant before the rename. Elsewhere it is a hidden ``.tmp`` file beside
    ``target``. On any exception (including ``KeyboardInterrupt``) it is removed and ``target``
    is left untouched.
    """
    folder = target.parent
    try:
        handle = _unnamed_file(folder)
    except OSError as error:
        raise _write_failure(folder, error) from error
    if handle is not None:
        unnamed = handle
        try:
            yield _PROC_FD / str(unnamed)
            os.fsync(unnamed)
            _publish(lambda name: _link_descriptor(unnamed, name), target)
        finally:
            os.close(unnamed)
        return
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise _write_failure(folder, error) from error
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        # mkstemp makes the file private (0600); give the result the usual permissions.
        os.chmod(temporary, 0o666 & ~_umask())
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def _link_descriptor(handle: int, name: Path) -> None:
    proc = os.open(_PROC_FD, os.O_RDONLY)
    try:
        os.link(str(handle), name, src_dir_fd=proc, follow_symlinks=True)
    finally:
        os.close(proc)


def _publish(link: Callable[[Path], None], target: Path) -> None:
    """Give the finished file a fresh hidden name beside ``target``, then rename it over."""
    for attempt in range(100):
        name = target.with_name(f".{target.name}.{os.getpid()}.{attempt}.tmp")
        try:
            link(name)
        except FileExistsError:
            continue
        try:
            os.replace(name, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                name.unlink()
            raise
        return
    raise OutputFileError(f"Cannot find a free temporary name beside {str(target)!r}.")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
