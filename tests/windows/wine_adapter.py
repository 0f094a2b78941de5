#!/usr/bin/env python3
"""claude-acp.exe under Wine as the suite's adapter (.ci/windows): `CLAUDE_ACP_TEST_ADAPTER` names
this script, which starts `wine64 claude-acp.exe` with the same arguments and relays the editor's
lines both ways, writing every path as the other side's system writes it: the tests' Unix paths
(`/tmp/x/hello.txt`) reach claude-acp.exe as a Windows editor sends them (`Z:\\tmp\\x\\hello.txt`,
Wine's drive for `/`), and the Windows paths claude-acp.exe sends back reach the tests as Unix
paths. Nothing else of a message changes, so the tests' assertions hold for the Windows build as
they are. `--claude-path` naming this script names claude-acp.exe (the stand-in is the adapter
itself). Paths inside files and environment variables are left as they are: Wine reads a `/...`
path as one on its `Z:` drive.

The real-CLI tests start the adapter with a cleared environment, so .ci/windows starts this
through a wrapper that sets Wine's variables and these: CLAUDE_ACP_WINE (the wine64 loader),
CLAUDE_ACP_WINE_EXE (claude-acp.exe, a Unix path), CLAUDE_ACP_WINE_ADAPTER (the wrapper, which the
tests name as the stand-in's `--claude-path`). A `claude.exe` in a folder on `PATH` is put on
Wine's own search path (`WINEPATH`), so that claude-acp.exe finds it by name as on Windows.
"""

import json
import os
import re
import subprocess
import sys
import threading

WINE = os.environ["CLAUDE_ACP_WINE"]
EXE = os.environ["CLAUDE_ACP_WINE_EXE"]
SELF = {os.path.realpath(__file__), os.path.realpath(os.environ.get("CLAUDE_ACP_WINE_ADAPTER", __file__))}
# The top folders a test's paths live in: a string under one of them is a path.
ROOTS = tuple(
    "/" + name + suffix
    for name in os.listdir("/")
    if os.path.isdir("/" + name)
    for suffix in ("/", "")
)
UNIX_PATH = re.compile(r"(?<![\w:/.])(/(?:" + "|".join(re.escape(r.strip("/")) for r in ROOTS if r.endswith("/")) + r")/[^\s\"'`<>|]*)")
WINDOWS_PATH = re.compile(r"[Zz]:[\\/][^\s\"'`<>|]*")


def to_windows(path):
    return "Z:" + path.replace("/", "\\")


def to_unix(match):
    return "/" + match.group(0)[3:].replace("\\", "/")


def inward(value):
    """A message from the tests: Unix paths (whole strings) become Windows paths."""
    if isinstance(value, str):
        if value == "/" or value.startswith(ROOTS):
            return to_windows(value)
        if value.startswith("file:///") and value[7:].startswith(ROOTS):
            return "file:///" + to_windows(value[7:]).replace("\\", "/")
        return value
    if isinstance(value, list):
        return [inward(v) for v in value]
    if isinstance(value, dict):
        return {k: inward(v) for k, v in value.items()}
    return value


def outward(value):
    """A message from claude-acp.exe: Windows paths (anywhere in a string) become Unix paths."""
    if isinstance(value, str):
        value = value.replace("file:///Z:/", "file:///").replace("file:///z:/", "file:///")
        return WINDOWS_PATH.sub(to_unix, value)
    if isinstance(value, list):
        return [outward(v) for v in value]
    if isinstance(value, dict):
        return {outward(k): outward(v) for k, v in value.items()}
    return value


def relay(source, sink, convert):
    for line in source:
        try:
            message = json.loads(line)
        except ValueError:
            sink.write(line)  # not JSON: as it came (the tests check how bad lines are handled)
        else:
            sink.write((json.dumps(convert(message), ensure_ascii=False) + "\n").encode())
        sink.flush()
    try:
        sink.close()
    except OSError:
        pass


def args(argv):
    out = []
    for arg in argv:
        if os.path.realpath(arg) in SELF:
            out.append(to_windows(EXE))
        elif arg.startswith(ROOTS):
            out.append(to_windows(arg))
        else:
            out.append(arg)
    return out


def environment():
    """The tests' environment for claude-acp.exe: path lists in Windows form (`;` between them),
    and the folders the tests make private where Windows programs look for them."""
    env = dict(os.environ)
    for key in ("CLAUDE_STANDIN_SCRIPT", "CLAUDE_CONFIG_DIR", "CLAUDE_STANDIN_STARTS", "CLAUDE_STANDIN_LOG"):
        if env.get(key):
            env[key] = ";".join(to_windows(p) for p in env[key].split(":"))
    if env.get("XDG_CACHE_HOME"):
        env["LOCALAPPDATA"] = to_windows(env["XDG_CACHE_HOME"])
    claude_dirs = [d for d in env.get("PATH", "").split(":") if d and os.path.isfile(os.path.join(d, "claude.exe"))]
    if claude_dirs:
        env["WINEPATH"] = ";".join(to_windows(d) for d in claude_dirs)
    for key in ("HOME", "CLAUDE_CODE_TMPDIR"):
        if env.get(key, "").startswith(ROOTS):
            env[key] = to_windows(env[key])
    if env.get("HOME"):
        env["USERPROFILE"] = env["HOME"]
    # Wine's own server keeps its socket under TMPDIR: one for every test, not one per test's
    # TMPDIR. Windows programs take the test's from TEMP and TMP.
    if env.get("TMPDIR"):
        env["TEMP"] = env["TMP"] = to_windows(env["TMPDIR"])
        env["TMPDIR"] = "/tmp"
    return env


def main():
    child = subprocess.Popen(
        [WINE, EXE] + args(sys.argv[1:]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=environment(),
    )
    up = threading.Thread(target=relay, args=(sys.stdin.buffer, child.stdin, inward), daemon=True)
    up.start()
    relay(child.stdout, sys.stdout.buffer, outward)
    sys.exit(child.wait())


main()
