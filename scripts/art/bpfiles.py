#!/usr/bin/env python3
"""bpfiles.py LIBCORE_DIR GROUP...: print the .java files of libcore's Soong filegroups
(openjdk_java_files.bp, non_openjdk_java_files.bp), following ":group" references;
references to groups not defined in libcore (external/icu's android_icu4j_src_files) are skipped."""
import glob, os, re, sys
root = sys.argv[1]
groups = {}
for bp in ("openjdk_java_files.bp", "non_openjdk_java_files.bp", "JavaLibrary.bp"):
    text = open(os.path.join(root, bp)).read()
    for m in re.finditer(r'filegroup\s*\{(.*?)\n\}', text, re.S):
        body = m.group(1)
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        srcs = re.search(r'srcs:\s*\[(.*?)\]', body, re.S)
        groups[name] = re.findall(r'"([^"]+)"', srcs.group(1)) if srcs else []
out, seen = [], set()
def walk(g):
    for s in groups.get(g, []):
        if s.startswith(":"):
            walk(s[1:])
        else:
            for f in sorted(glob.glob(os.path.join(root, s), recursive=True)) if "*" in s else [os.path.join(root, s)]:
                if f not in seen:
                    seen.add(f); out.append(f)
for g in sys.argv[2:]:
    walk(g)
print("\n".join(out))
