#!/usr/bin/env python3
"""addres.py JAR SOURCE...: add the resources (every file but .java/.class, no META-INF) of each
SOURCE (a directory or a jar) to JAR, stored uncompressed so ART can map them."""
import os, sys, zipfile
jar = sys.argv[1]
have = set(zipfile.ZipFile(jar).namelist())
with zipfile.ZipFile(jar, "a", zipfile.ZIP_STORED) as z:
    for src in sys.argv[2:]:
        if os.path.isdir(src):
            items = []
            for d, _, fs in os.walk(src):
                for f in fs:
                    p = os.path.join(d, f)
                    items.append((os.path.relpath(p, src), p))
            for name, p in sorted(items):
                if name.endswith((".java", ".class", ".README")) or name in have:
                    continue
                z.write(p, name); have.add(name)
        else:
            with zipfile.ZipFile(src) as s:
                for info in s.infolist():
                    n = info.filename
                    if n.endswith("/") or n.endswith(".class") or n.startswith("META-INF/") or n in have:
                        continue
                    z.writestr(zipfile.ZipInfo(n, info.date_time), s.read(n)); have.add(n)
