"""Files written whole or not at all, with a one-line error naming the file when they cannot be.

Every file a Tactica command writes (saves, logs, reports, tuned scenarios, plots, policies)
goes through `atomic_write` or `atomic_open`:

- the data goes to a temporary file in the target's folder, named `.NAME.tmp-PID-RANDOM`
  (PID: the writing process), is flushed and fsynced, then renamed over NAME, so a reader
  sees the old file or the new one, never half of one, even after a `kill -9` or a power cut;
- a failure (a full disk, a read-only folder, a missing folder) removes the temporary file
  and raises a `WriteError` naming NAME and what failed, e.g.
  `run.jsonl: (file): cannot write: No space left on device (expected free space ...)`;
- temporary files of NAME left by a process that no longer runs (killed mid-write) are
  removed by the next write of NAME (`remove_stale_temps`), so none pile up;
- a device or a pipe (`/dev/null`, `/dev/full`, `/dev/stdout`, a FIFO) is written directly:
  it cannot be renamed over, and replacing it would be wrong.

A process is taken for dead when `kill(pid, 0)` says there is none; two hosts writing into
one shared folder could see each other's live temporary files as stale, so such a folder
should not hold the same save for two machines at once.
"""

from __future__ import annotations

import errno as _errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from rules.errors import WriteError

#: what separates a target's name from the writer's pid in a temporary file's name
TEMP_MARK = ".tmp-"

_EXPECTED = {
    _errno.ENOSPC: "free space on its disk, or a file on another disk",
    _errno.EDQUOT: "free space within the disk quota, or a file on another disk",
    _errno.EACCES: "a folder this user may write to",
    _errno.EPERM: "a folder this user may write to",
    _errno.EROFS: "a folder on a file system mounted for writing",
    _errno.ENOENT: "a file in an existing folder",
    _errno.ENOTDIR: "a path whose folders are folders",
    _errno.EISDIR: "a file name, not a folder",
}


def failed(path: str | Path, what: str, e: OSError, field: str = "(file)") -> WriteError:
    """The `WriteError` for an `OSError` met while writing `path` (`what`: the step that failed)."""
    reason = e.strerror or e.__class__.__name__
    return WriteError(f"{what}: {reason}", source=str(path), field=field,
                      expected=_EXPECTED.get(e.errno or 0, "a file that can be written"), errno=e.errno)


def temp_prefix(path: Path) -> str:
    """The start of the names of `path`'s temporary files: `.NAME.tmp-`."""
    return f".{path.name}{TEMP_MARK}"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid() or os.name != "posix":
        return True   # our own (another thread may be writing) or no way to tell: keep it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True    # it runs, under another user
    except (OSError, OverflowError, ValueError):
        return False   # no process can have this id
    return True


def stale_temps(path: str | Path) -> list[Path]:
    """Temporary files of `path` whose writing process no longer runs (killed mid-write)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    prefix = temp_prefix(path)
    out = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in names:
        if not name.startswith(prefix):
            continue
        pid_text = name[len(prefix):].split("-", 1)[0]
        if pid_text.isdigit() and not _pid_alive(int(pid_text)):
            out.append(folder / name)
    return out


def remove_stale_temps(path: str | Path) -> int:
    """Remove `stale_temps(path)`; how many went (one that cannot be removed is left)."""
    n = 0
    for p in stale_temps(path):
        try:
            if p.is_file() and not p.is_symlink():
                p.unlink()
                n += 1
        except OSError:
            pass
    return n


def _is_stream(path: Path, field: str) -> bool:
    """`path` is a device or a pipe (written directly); a folder or a socket is an error."""
    try:
        st = os.stat(path)
    except OSError:
        return False   # new (or unreadable: the write names the reason)
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    if stat.S_ISDIR(st.st_mode):
        raise WriteError("is a folder", source=str(path), field=field, expected="a file name, not a folder",
                         errno=_errno.EISDIR)
    if not stat.S_ISREG(st.st_mode):
        raise WriteError("not a regular file", source=str(path), field=field,
                         expected="a new file, a regular file, a device or a pipe")
    return False


class _Writer:
    """A file object whose writes raise `WriteError` naming the file."""

    def __init__(self, fh: Any, path: Path, field: str) -> None:
        self._fh, self._path, self._field = fh, path, field

    def write(self, data: Any) -> int:
        try:
            return self._fh.write(data)
        except OSError as e:
            raise failed(self._path, "cannot write", e, self._field) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._fh.flush()
        except OSError as e:
            raise failed(self._path, "cannot write", e, self._field) from None


def _close_quietly(fh: Any) -> None:
    try:
        fh.close()
    except OSError:
        pass


@contextmanager
def _direct(path: Path, binary: bool, field: str) -> Iterator[_Writer]:
    try:
        fh = open(path, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"}))
    except OSError as e:
        raise failed(path, "cannot open for writing", e, field) from None
    try:
        yield _Writer(fh, path, field)
        try:
            fh.close()   # the last buffered bytes: a full device says so here
        except OSError as e:
            raise failed(path, "cannot write", e, field) from None
    finally:
        _close_quietly(fh)


@contextmanager
def atomic_open(path: str | Path, *, binary: bool = False, mode: int | None = None,
                field: str = "(file)") -> Iterator[_Writer]:
    """A file object for writing `path` whole or not at all (see the module's docstring).

    Text is UTF-8. `mode`: the file's permissions (default: owner only). Nothing is left of
    the file when the block raises; a write that fails raises `WriteError`."""
    path = Path(path)
    if _is_stream(path, field):
        with _direct(path, binary, field) as w:
            yield w
        return
    folder = path.parent if str(path.parent) else Path(".")
    remove_stale_temps(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{temp_prefix(path)}{os.getpid()}-", dir=folder)
    except OSError as e:
        raise failed(path, "cannot create a file in its folder", e, field) from None
    done = False
    try:
        fh = os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"}))
        try:
            yield _Writer(fh, path, field)
            try:
                fh.flush()
                os.fsync(fh.fileno())
            except OSError as e:
                raise failed(path, "cannot write", e, field) from None
        finally:
            _close_quietly(fh)
        try:
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, path)
        except OSError as e:
            raise failed(path, "cannot put the written file in place", e, field) from None
        done = True
    finally:
        if not done:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _fsync_folder(folder)


def umask_mode(base: int = 0o666) -> int:
    """The permissions `open()` gives a new file under this process's umask (`base` less the
    umask: 0o644 under the usual 022), for files a user means to read, share or copy."""
    try:   # Linux: read without changing it (a set-and-restore leaves a window for other threads)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return base & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return base & ~mask


def atomic_write(path: str | Path, data: str | bytes, mode: int | None = None, field: str = "(file)") -> None:
    """Write `data` (text as UTF-8) to `path` whole or not at all. `mode`: the file's
    permissions (default: the temporary file's, owner only)."""
    with atomic_open(path, binary=True, mode=mode, field=field) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


def _fsync_folder(folder: Path) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # pragma: no cover - some file systems refuse a folder fsync
        pass
