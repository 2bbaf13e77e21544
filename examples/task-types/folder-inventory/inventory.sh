#!/bin/sh
# folder-inventory: an operator task type written in POSIX shell.
#
# The service runs `sh inventory.sh <payload file>` with this folder as the working directory.
# The payload is the JSON file named by the last argument (also ORCH_PAYLOAD_FILE); the result
# is one JSON object on the last line of stdout; stderr is the run's log.
set -eu

# The payload is flat and its schema keeps quotes and backslashes out of "folder", so sed can
# read it; a program with nested payloads would use a JSON parser (jq, python3, node).
folder=$(sed -n 's/.*"folder"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$1")
target="$ORCH_WORKSPACE_ROOT/$folder"
echo "taking stock of $folder" >&2

if [ ! -d "$target" ]; then
  # A failure the program understands: success false with its reason, exit 0.
  printf '{"success":false,"error":"%s is not a folder of the workspace"}\n' "$folder"
  exit 0
fi

files=0
bytes=0
largest=""
largest_size=-1
# One file a line: names with a newline in them are not expected in a workspace folder.
listing="$ORCH_SCRATCH_DIR/files"
find "$target" -type f > "$listing"
while IFS= read -r file; do
  size=$(wc -c < "$file" | tr -d ' ')
  files=$((files + 1))
  bytes=$((bytes + size))
  if [ "$size" -gt "$largest_size" ]; then
    largest_size=$size
    largest=${file#"$ORCH_WORKSPACE_ROOT/"}
  fi
done < "$listing"
echo "$files files, $bytes bytes" >&2

printf '{"folder":"%s","files":%d,"bytes":%d,"largest":"%s"}\n' "$folder" "$files" "$bytes" "$largest"
