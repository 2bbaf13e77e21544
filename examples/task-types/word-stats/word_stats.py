"""word-stats: an operator task type written in Python.

The service runs `python3 word_stats.py <payload file>` with this folder as the working
directory. The payload is the JSON file named by the last argument (also ORCH_PAYLOAD_FILE);
the result is one JSON object on the last line of stdout. Anything written to stderr is the
run's log, line by line.
"""
import collections
import json
import os
import re
import sys

with open(sys.argv[-1], encoding="utf-8") as f:
    payload = json.load(f)

path = payload["path"]
top = payload.get("top", 5)
# Scope paths are relative to the workspace; the sandbox shows this one read-only.
full = os.path.join(os.environ["ORCH_WORKSPACE_ROOT"], path)
print(f"reading {path}", file=sys.stderr)

try:
    with open(full, encoding="utf-8", errors="replace") as f:
        text = f.read()
except OSError as err:
    # A failure the program understands: success false with its reason, exit 0.
    print(json.dumps({"success": False, "error": f"{path} cannot be read: {err.strerror}"}))
    sys.exit(0)

words = re.findall(r"[a-z']+", text.lower())
counts = collections.Counter(w for w in words if len(w) > 3)
print(f"{len(words)} words, {len(counts)} distinct longer than three letters", file=sys.stderr)

print(json.dumps({
    "path": path,
    "lines": text.count("\n"),
    "words": len(words),
    "topWords": [{"word": w, "count": c} for w, c in counts.most_common(top)],
}))
