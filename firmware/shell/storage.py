"""Owns how bytes reach the flash: atomic replace, tolerant reads, a size-capped log.

Every function takes `fs`, an os-like module (default: the real `os`) with open(path, mode),
rename, remove, stat, listdir and mkdir; for the real `os` the builtin open() is used, since
neither MicroPython's nor CPython's `os` has a file-object open. Tests hand in a fake that
loses power or runs out of space part way.

Atomic replace: write_atomic() writes PATH.tmp, closes it, then renames it over PATH. On
littlefs2 (the RP2040 filesystem) rename replaces an existing file in one metadata commit
(lfs_rename: "if the destination exists, it must match the source in type"; MicroPython's
VfsLfs2.rename calls it directly), so PATH always holds the old or the new text, never a
mix. A filesystem that refuses to rename over a file gets the target removed first; the
readers cover the window in which only PATH.tmp exists.

Reading: read_json() prefers a PATH.tmp that parses as a JSON object. Such a file only
exists when a save was cut between close and rename, so it is newer than PATH; a write cut
short never parses, because every proper prefix of a JSON object text is invalid. The
recovered file is renamed into place. read_text() cannot tell a cut tmp from a whole one, so
it uses PATH.tmp only when PATH is missing. read_json(..., stream=True) parses straight from
the file (json.load), so a file bigger than READ_LIMIT (game.json with its move log) is never
held as one string; peek() reads a few bytes of a file (gamelog checks a record's head and
tail with it).

Nothing here raises on a bad or missing file; write_atomic() raises OSError on a failed
write (after removing its partial tmp) so callers can report it.
"""

import errno
import json
import os

from micropython import const

# read_text() / read_json() status
OK = const(0)
MISSING = const(1)  # neither PATH nor a usable PATH.tmp exists
CORRUPT = const(2)  # PATH exists but cannot be read or parsed
RECOVERED = const(3)  # the text came from PATH.tmp (now renamed into place)

# MicroPython's errno has no ENOSPC; littlefs reports a full flash as OSError(28). Whether a
# file is missing is asked with stat(), not read from errno: the WebAssembly port used by
# the host tests raises other numbers than its errno module holds.
ENOSPC = getattr(errno, "ENOSPC", 28)

TMP = ".tmp"  # suffix of the file being written
READ_LIMIT = const(16384)  # bytes; a larger file is CORRUPT rather than a MemoryError


def join(root, name):
    """`root` + "/" + `name`, without doubling the slash ("" or "/" mean the top)."""
    if not root:
        return "/" + name
    if root[-1] == "/":
        return root + name
    return root + "/" + name


def errno_of(exc):
    """The errno of an OSError on both runtimes (MicroPython keeps it in args[0])."""
    args = exc.args
    return args[0] if args and isinstance(args[0], int) else 0


def _open(fs, path, mode):
    if fs is os:
        return open(path, mode)
    return fs.open(path, mode)


def _close(f):
    try:
        f.close()
    except Exception:
        pass


def _discard(path, fs):
    try:
        fs.remove(path)
    except OSError:
        pass


def exists(path, fs=os):
    try:
        fs.stat(path)
        return True
    except OSError:
        return False


def size(path, fs=os):
    """Size of `path` in bytes, or -1 when it does not exist or cannot be stat'ed."""
    try:
        return fs.stat(path)[6]
    except OSError:
        return -1


def _put(f, chunk):
    if isinstance(chunk, str):
        chunk = chunk.encode()
    n = f.write(chunk)
    if n is not None and n != len(chunk):
        raise OSError(ENOSPC)  # a short write is a full flash


def replace(src, dst, fs=os):
    """Rename `src` over `dst` (see the module doc for filesystems that refuse to). Raises
    OSError when it fails."""
    try:
        fs.rename(src, dst)
    except OSError:
        if not exists(src, fs):
            raise  # src vanished: never remove dst for that
        # A filesystem that will not rename over an existing file (littlefs2 does). Until the
        # second rename, only `src` holds the data; the readers pick it up from there.
        _discard(dst, fs)
        fs.rename(src, dst)


def peek(path, offset, n, fs=os):
    """Up to `n` bytes of `path` from byte `offset` (b"" when it cannot be read): to look at
    a file's head or tail without reading it whole."""
    try:
        f = _open(fs, path, "rb")
    except OSError:
        return b""
    try:
        if offset:
            f.seek(offset)
        data = f.read(n)
        return data if isinstance(data, bytes) else b""
    except (OSError, ValueError):
        return b""
    finally:
        _close(f)


def write_atomic(path, data, fs=os):
    """Replace `path` with `data`: a str or bytes, or an iterable of str/bytes chunks written
    one after the other (so a big file never needs one big string). Raises OSError when the
    write fails; `path` then still holds its previous contents."""
    tmp = path + TMP
    f = _open(fs, tmp, "wb")
    try:
        if isinstance(data, (str, bytes)):
            _put(f, data)
        else:
            for chunk in data:
                _put(f, chunk)
        f.flush()
        f.close()  # littlefs commits the file here; this can also raise ENOSPC
    except Exception:
        _close(f)
        _discard(tmp, fs)
        raise
    replace(tmp, path, fs)


def delete(path, fs=os):
    """Remove `path` and any PATH.tmp (the tmp first, so it cannot come back as a recovered
    copy). True when neither exists afterwards."""
    ok = True
    for p in (path + TMP, path):
        try:
            fs.remove(p)
        except OSError:
            if exists(p, fs):
                ok = False
    return ok


def _load(path, fs, parse, limit, stream=False):
    """(value, OK) or (None, MISSING / CORRUPT); never raises for a bad file. With `stream`,
    `parse` is handed the open file (json.load reads it bit by bit: no copy of the text in
    RAM), otherwise the decoded text."""
    try:
        f = _open(fs, path, "rb")
    except OSError:
        return None, CORRUPT if exists(path, fs) else MISSING
    try:
        n = size(path, fs)
        if n > limit:
            return None, CORRUPT
        if stream:
            try:
                return parse(f), OK
            except Exception:  # ValueError, MemoryError, OSError, RecursionError...
                return None, CORRUPT
        text = f.read().decode()  # UnicodeError is a ValueError on both runtimes
    except (OSError, ValueError, MemoryError):
        return None, CORRUPT
    finally:
        _close(f)
    if parse is None:
        return text, OK
    try:
        return parse(text), OK
    except Exception:  # ValueError, MemoryError, RecursionError on absurd nesting...
        return None, CORRUPT


def _object(value):
    if not isinstance(value, dict):
        raise ValueError("not an object")
    return value


def _json_object(text):
    return _object(json.loads(text))


def _json_object_stream(f):
    return _object(json.load(f))  # MicroPython parses from the stream until its end


def recover_json(path, fs=os, limit=READ_LIMIT, stream=False):
    """Settle a leftover PATH.tmp: rename it over PATH when it is a whole JSON object
    (returns it), otherwise remove it (returns None). `stream`: see read_json()."""
    tmp = path + TMP
    parse = _json_object_stream if stream else _json_object
    value, st = _load(tmp, fs, parse, limit, stream)
    if st == OK:
        try:
            replace(tmp, path, fs)
        except OSError:
            pass  # still readable from the tmp next time
        return value
    if st == CORRUPT:
        _discard(tmp, fs)
    return None


def read_json(path, fs=os, limit=READ_LIMIT, stream=False):
    """(dict, status) for a file holding one JSON object; (None, MISSING / CORRUPT)
    otherwise. A whole PATH.tmp wins over PATH (status RECOVERED, see module doc). With
    `stream` the file is parsed straight from flash (json.load), never held as one string:
    for files that may be bigger than READ_LIMIT (pass a `limit` that bounds them)."""
    value = recover_json(path, fs, limit, stream)
    if value is not None:
        return value, RECOVERED
    parse = _json_object_stream if stream else _json_object
    value, st = _load(path, fs, parse, limit, stream)
    if st == OK:
        return value, OK
    return None, st


def read_text(path, fs=os, limit=READ_LIMIT):
    """(text, status) for any text file. PATH.tmp is used (and renamed into place) only
    when PATH is missing, as nothing tells a whole tmp from a cut one."""
    text, st = _load(path, fs, None, limit)
    if st != MISSING:
        return text, st
    tmp = path + TMP
    text, st = _load(tmp, fs, None, limit)
    if st != OK:
        return None, MISSING
    try:
        replace(tmp, path, fs)
    except OSError:
        pass
    return text, RECOVERED


def append_log(path, line, max_bytes=4096, fs=os):
    """Append `line` (str; a newline is added) to the log at `path`, keeping the file at most
    `max_bytes` long: when the new entry would not fit, only the newest lines of the old log
    are kept (about half of `max_bytes`, cut at a line start). An entry longer than half of
    `max_bytes` keeps its tail. Returns True when written; never raises (crash handlers
    call it)."""
    try:
        data = line.encode() if isinstance(line, str) else bytes(line)
        if not data.endswith(b"\n"):
            data += b"\n"
        half = max_bytes // 2
        if len(data) > half:
            data = data[len(data) - half :]
        old = size(path, fs)
        if old < 0:
            old = 0
        if old + len(data) <= max_bytes:
            f = _open(fs, path, "ab")
            try:
                _put(f, data)
            finally:
                _close(f)
            return True
        keep = half - len(data)
        tail = b""
        if keep > 0:
            f = _open(fs, path, "rb")
            try:
                f.seek(old - keep - 1)  # one byte early: is the first kept byte a line start?
                tail = f.read(keep + 1)
            finally:
                _close(f)
            cut = tail.find(b"\n")
            tail = tail[cut + 1 :] if cut >= 0 else b""
        write_atomic(path, (tail, data), fs)
        return True
    except Exception:
        return False
