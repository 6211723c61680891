"""A fault-injecting, os-like filesystem for the storage and power-cut tests.

FakeFS can lose power at any step (every call is a step, every written byte is one) or run
out of space, and models two filesystems: a FAT-like one whose writes reach the medium byte
by byte, and a littlefs-like one whose file contents change only at close. Each call is also
logged in `ops` (step, name, bytes), so a test can cut the power before, inside and after
every single operation of a sequence (cut_points()).

MetadataPair times a littlefs directory's commits (a page program each, and the sector
erase of a compaction when the block is full), for FakeFS (`on_commit`) or for the real
filesystem of the simulated board (TimedOS).
"""

import errno
import os

import pytest


class PowerLoss(BaseException):
    """The power went: no code runs after this (so no `except Exception` may catch it)."""


class FakeFS:
    """An os-like filesystem in a dict {path: bytes}.

    die_at: the step (0-based) at which the power goes; every call is one step and every
        byte written is one, so a write can be cut after any byte.
    capacity: total bytes the files may hold; a write past it writes what fits, then raises
        OSError(ENOSPC).
    lfs: True models littlefs (an open file's new contents appear only at close),
        False a filesystem that stores each byte as it is written.
    rename_replaces: False models a filesystem whose rename refuses an existing target.
    """

    def __init__(self, lfs=False, rename_replaces=True):
        self.files = {}
        self.dirs = {"/"}
        self.lfs = lfs
        self.rename_replaces = rename_replaces
        self.die_at = None
        self.capacity = None
        self.steps = 0
        self.dead = False
        self.writes = []  # sizes of the write() calls, to check streaming
        self.calls = []  # operation names, in order
        self.open_files = set()  # write handles not yet closed
        self.ops = []  # (step at the call, name, bytes written) per call, in order
        self.on_commit = None  # lfs: called with the path of each commit (MetadataPair)

    def reboot(self):
        """The same medium after a power cycle: open files are gone, faults cleared."""
        fs = FakeFS(self.lfs, self.rename_replaces)
        fs.files = dict(self.files)
        fs.dirs = set(self.dirs)
        return fs

    def op(self, name, nbytes=0):
        """Log one call (before its step), then take the step."""
        self.ops.append((self.steps, name, nbytes))
        self.step(name)

    def commit(self, path):
        """A littlefs commit into the metadata of `path`'s directory."""
        if self.lfs and self.on_commit is not None:
            self.on_commit(path)

    def step(self, name=None):
        if self.dead:
            raise PowerLoss()
        if self.die_at is not None and self.steps >= self.die_at:
            self.dead = True
            raise PowerLoss()
        self.steps += 1
        if name:
            self.calls.append(name)

    def used(self):
        """Bytes on the medium, counting data that littlefs holds for files still open."""
        pending = sum(len(f.data) for f in self.open_files) if self.lfs else 0
        return sum(len(v) for v in self.files.values()) + pending

    @staticmethod
    def parent(path):
        return path.rsplit("/", 1)[0] or "/"

    def open(self, path, mode):
        self.op("open")
        if path in self.dirs:
            raise OSError(errno.EISDIR, "is a directory")
        if "r" in mode:
            if path not in self.files:
                raise OSError(errno.ENOENT, "no such file")
            return FakeFile(self, path, mode, self.files[path])
        if self.parent(path) not in self.dirs:
            raise OSError(errno.ENOENT, "no such directory")
        if path not in self.files:
            self.files[path] = b""  # the name appears at once on both models
            self.commit(path)  # littlefs commits a new file's name at its open
        start = self.files[path] if "a" in mode else b""
        if "w" in mode and not self.lfs:
            self.files[path] = b""  # truncated at once
        return FakeFile(self, path, mode, start)

    def rename(self, src, dst):
        self.op("rename")
        if src not in self.files:
            raise OSError(errno.ENOENT, "no such file")
        if dst in self.dirs:
            raise OSError(errno.EISDIR, "is a directory")
        if dst in self.files and not self.rename_replaces:
            raise OSError(errno.EEXIST, "exists")
        self.files[dst] = self.files.pop(src)
        self.commit(dst)

    def remove(self, path):
        self.op("remove")
        if path not in self.files:
            raise OSError(errno.ENOENT, "no such file")
        del self.files[path]
        self.commit(path)

    def stat(self, path):
        self.op("stat")
        if path in self.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if path not in self.files:
            raise OSError(errno.ENOENT, "no such file")
        return (0x8000, 0, 0, 0, 0, 0, len(self.files[path]), 0, 0, 0)

    def listdir(self, path):
        self.op("listdir")
        path = path.rstrip("/") or "/"
        if path not in self.dirs:
            raise OSError(errno.ENOENT, "no such directory")
        prefix = path if path.endswith("/") else path + "/"
        names = []
        for p in sorted(self.files) + sorted(self.dirs):
            rest = p[len(prefix) :]
            if p.startswith(prefix) and rest and "/" not in rest:
                names.append(rest)
        return names

    def mkdir(self, path):
        self.op("mkdir")
        if path in self.dirs or path in self.files:
            raise OSError(errno.EEXIST, "exists")
        if self.parent(path) not in self.dirs:
            raise OSError(errno.ENOENT, "no such directory")
        self.dirs.add(path)
        made = getattr(self.on_commit, "mkdir", None) if self.lfs else None
        if made is not None:
            made(path)


class FakeFile:
    def __init__(self, fs, path, mode, start):
        self.fs = fs
        self.path = path
        self.mode = mode
        self.data = bytearray(start)  # the file as this handle sees it
        self.pos = len(self.data) if "a" in mode else 0
        self.closed = False
        # littlefs commits a written file at its sync (flush) or close, if changed since
        self.dirty = "r" not in mode
        if "r" not in mode:
            fs.open_files.add(self)

    def write(self, data):
        fs = self.fs
        if isinstance(data, str):
            data = data.encode()
        fs.op("write", len(data))
        fs.writes.append(len(data))
        n = 0
        for b in data:
            if fs.capacity is not None and fs.used() >= fs.capacity:
                raise OSError(errno.ENOSPC, "no space")
            fs.step()  # may lose power between two bytes
            if self.pos < len(self.data):
                self.data[self.pos] = b  # rewritten in place (after a seek)
            else:
                self.data.append(b)
            self.pos += 1
            self.dirty = True
            n += 1
            if not fs.lfs:
                fs.files[self.path] = bytes(self.data)
        return n

    def read(self, n=-1):
        self.fs.op("read")
        end = len(self.data) if n is None or n < 0 else self.pos + n
        out = bytes(self.data[self.pos : end])
        self.pos += len(out)
        return out.decode() if "b" not in self.mode else out

    def seek(self, pos):
        self.fs.op("seek")
        self.pos = pos

    def flush(self):
        self.fs.op("flush")
        self._sync()

    def close(self):
        if self.closed:
            return
        self.fs.op("close")
        self.closed = True
        self.fs.open_files.discard(self)
        self._sync()

    def _sync(self):
        if self.dirty and "r" not in self.mode and self.fs.lfs:
            self.fs.files[self.path] = bytes(self.data)  # littlefs commits here
            self.fs.commit(self.path)
        self.dirty = False


class MetadataPair:
    """The time a littlefs directory's commits take, as on the rp2's W25Q16JV: each commit
    into `folder` (a path's parent) programs one page of the metadata block (PAGE_US of
    virtual time); the commit that does not fit the block's `pages` compacts the pair: a
    sector erase (ERASE_US) and the live files copied in (each `overhead` bytes of tags
    more than its data), then the commit. `sizes()` gives the folder's file sizes, `advance(us)`
    moves virtual time. `at` logs each commit's (index, compacted)."""

    PAGE_US = 700
    ERASE_US = 45_000

    def __init__(self, folder, sizes, advance, pages=16, used=0, overhead=40):
        self.folder = folder
        self.sizes = sizes
        self.advance = advance
        self.pages = pages
        self.used = used  # pages of the block written
        self.overhead = overhead
        self.commits = 0
        self.at = []

    def __call__(self, path):
        if path.rsplit("/", 1)[0] != self.folder:
            return
        us = self.PAGE_US
        if self.used >= self.pages:
            live = sum(n + self.overhead for n in self.sizes())
            self.used = (live + 255) // 256
            us += self.ERASE_US
        self.used += 1
        self.at.append((self.commits, us > self.PAGE_US))
        self.commits += 1
        self.advance(us)

    def mkdir(self, path):
        """A folder made: littlefs erases a block of the new folder's metadata pair (the
        folder itself: its block starts empty; a subfolder: then its entry is a commit into
        the folder, whose time includes that erase)."""
        if path == self.folder:
            self.used = 0
            self.advance(self.ERASE_US + self.PAGE_US)
        elif path.rsplit("/", 1)[0] == self.folder:
            self.advance(self.ERASE_US)
            self(path)

    def compactions(self):
        """The commit indexes that compacted."""
        return [i for i, slow in self.at if slow]


def fs_sizes(fs, folder):
    """sizes() of a MetadataPair on FakeFS `fs`."""
    prefix = folder + "/"
    n = len(prefix)
    # its own files: a subfolder's are in the subfolder's pair (its entry: a few bytes)
    return lambda: [
        len(v) for p, v in fs.files.items() if p.startswith(prefix) and "/" not in p[n:]
    ]


class TimedOS:
    """The os module for a folder of the simulated board, its commits into `pair`'s folder
    timed (littlefs's points: a new file's open, a written file's close, a rename, a
    remove). storage.py takes it as its `fs`."""

    def __init__(self, pair):
        self.pair = pair

    def open(self, path, mode):
        new = "r" not in mode and not os.path.exists(path)
        f = open(path, mode)
        if new:
            self.pair(path)
        return _TimedFile(f, self.pair, path) if "r" not in mode else f

    def rename(self, src, dst):
        os.rename(src, dst)
        self.pair(dst)

    def remove(self, path):
        os.remove(path)
        self.pair(path)

    def stat(self, path):
        return os.stat(path)

    def listdir(self, path):
        return os.listdir(path)

    def mkdir(self, path):
        os.mkdir(path)
        made = getattr(self.pair, "mkdir", None)
        if made is not None:
            made(path)


class _TimedFile:
    def __init__(self, f, pair, path):
        self.f = f
        self.pair = pair
        self.path = path
        self.dirty = True  # littlefs commits at a sync (flush) or close, if changed since

    def write(self, data):
        self.dirty = True
        return self.f.write(data)

    def seek(self, pos):
        return self.f.seek(pos)

    def flush(self):
        self.f.flush()
        if self.dirty:
            self.dirty = False
            self.pair(self.path)

    def close(self):
        if not self.f.closed:
            self.f.close()
            if self.dirty:
                self.dirty = False
                self.pair(self.path)


def os_sizes(folder):
    """sizes() of a MetadataPair on the real filesystem (the board's folder is the cwd
    while its firmware runs)."""

    def sizes():
        try:
            names = os.listdir(folder)
        except OSError:
            return []
        # its own files: a subfolder's are in the subfolder's pair (its entry: a few bytes)
        stats = [os.stat(folder + "/" + n) for n in names]
        return [0 if st.st_mode & 0o040000 else st.st_size for st in stats]

    return sizes


def cut_points(ops, start, end):
    """Steps in [start, end] at which to cut the power so that every single operation logged
    in `ops` is cut before it starts, and every write also after its call with no byte, one
    byte, half and all but one of its bytes on the medium (the next operation's cut is the
    write completed). `end` itself is the sequence run to the end."""
    points = {end}
    for step, name, nbytes in ops:
        if not start <= step < end:
            continue
        points.add(step)
        if name == "write":
            for j in (0, 1, nbytes // 2, nbytes - 1):
                if 0 <= j < nbytes:
                    points.add(step + 1 + j)
    return sorted(points)


FS_MODELS = [
    pytest.param({"lfs": False}, id="fat-like"),
    pytest.param({"lfs": True}, id="littlefs-like"),
    pytest.param({"lfs": False, "rename_replaces": False}, id="no-replace"),
    pytest.param({"lfs": True, "rename_replaces": False}, id="lfs-no-replace"),
]


def new_fs(**kw):
    return FakeFS(**kw)
