#!/usr/bin/env python3
"""What each crate adds to the binary, cargo-bloat style, from the linker's map of one link.

The release profile strips symbols, so tools that read the binary's symbol table see nothing;
the linker's map still lists every input section with its size and the archive it came from
(`deps/libCRATE-HASH.rlib(...)`). Relink the binary with a map (only the binary crate is
rebuilt; the rest of the target directory is reused), then sum by crate:

    cargo rustc --release --locked --bin git-codesearch -- -C link-arg=-Wl,-Map=/tmp/new.map
    python3 bench/crate_sizes.py /tmp/new.map [--top 30] [--compare /tmp/old.map]

Reads GNU ld's and lld's maps. Counts allocated sections (.text, .rodata, .data, .data.rel.ro, .tbss/.tdata, .gcc_except_table,
.eh_frame) that the link kept; sections garbage-collected by --gc-sections are listed by the map
under "Discarded input sections" and are left out. Sizes are before the binary's own alignment and
headers, so the total is a little under the file's size.
"""
import argparse, collections, re

KEEP = (".text", ".rodata", ".data", ".tdata", ".tbss", ".gcc_except_table", ".eh_frame", ".bss")
ENTRY = re.compile(r"^\s*(\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$")
# lld's map: VMA LMA Size Align, then an input section as `path(member):(section)`.
LLD = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S.*):\((\.[^)]*)\)$")
CRATE = re.compile(r"lib([A-Za-z0-9_]+)-[0-9a-f]+\.rlib")


def owner(path):
    """The crate an input file belongs to: an rlib's crate name, or the file's own name."""
    m = CRATE.search(path)
    if m:
        return m.group(1)
    if ".rcgu.o" in path:
        return "git_codesearch (binary crate)"
    return path.rsplit("/", 1)[-1].split("(")[0]


def sizes(map_path):
    by = collections.Counter()
    section = None
    discarded = False
    for line in open(map_path, errors="replace"):
        if line.startswith("Discarded input sections"):
            discarded = True
        elif line.startswith("Memory map") or line.startswith("Linker script and memory map"):
            discarded = False
        if discarded:
            continue
        m = LLD.match(line.rstrip("\n"))
        if m:
            if m.group(3).startswith(KEEP):
                by[owner(m.group(2))] += int(m.group(1), 16)
            continue
        m = ENTRY.match(line.rstrip("\n"))
        if m:
            name = m.group(1) or section
            section = None
            if name and name.startswith(KEEP):
                by[owner(m.group(3))] += int(m.group(2), 16)
        else:
            s = line.strip()
            section = s if s.startswith(".") and " " not in s else None
    return by


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("map")
    ap.add_argument("--compare", help="an older link's map: show each crate's change")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    new = sizes(a.map)
    old = sizes(a.compare) if a.compare else None
    mb = lambda n: f"{n / 1e6:8.2f}"
    print(f"total {mb(sum(new.values()))} MB in {len(new)} crates" +
          (f" (was {mb(sum(old.values()))} MB in {len(old)})" if old else ""))
    names = sorted(set(new) | set(old or {}), key=lambda k: -max(new.get(k, 0), (old or {}).get(k, 0)))
    for k in names[: a.top]:
        line = f"{mb(new.get(k, 0))} MB  {k}"
        if old is not None:
            line = f"{mb(old.get(k, 0))} -> " + line
        print(line)
    if old is not None:
        gone = sorted((k for k in old if k not in new), key=lambda k: -old[k])
        print("only in the older link: " + ", ".join(f"{k} {old[k] / 1e6:.2f}" for k in gone[:25]))


if __name__ == "__main__":
    main()
