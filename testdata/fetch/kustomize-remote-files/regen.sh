#!/bin/sh
# Rewrites expected.yaml with the reference tool: serves served/ on 127.0.0.1, writes
# in/kustomization.yaml.in with SERVER replaced by that server's URL into a copy of in/, and
# runs `kubectl kustomize` (kustomize v5.5.0) on the copy, which downloads each file as
# kustomize's loader does. tests/fetch.rs serves the same files and checks that kdelta, once
# it has fetched them, prints expected.yaml byte for byte.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$here/served" "$port" >/dev/null 2>&1 &
server=$!
sleep 1
cp -r "$here/in" "$work/in"
sed "s|SERVER|http://127.0.0.1:$port|g" "$here/in/kustomization.yaml.in" > "$work/in/kustomization.yaml"
rm "$work/in/kustomization.yaml.in"
kubectl kustomize "$work/in" > "$here/expected.yaml"
echo "expected.yaml: ok"
