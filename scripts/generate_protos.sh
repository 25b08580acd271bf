#!/usr/bin/env bash
# Regenerates generated/ from proto/: Python messages, type stubs, gRPC stubs and
# the descriptor set Envoy's gRPC-JSON transcoder reads. Deterministic: CI runs it
# and fails when the committed output differs (`make check-generated`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
OUT=${1:-generated}

rm -rf "$OUT/herald" "$OUT/herald.binpb"
mkdir -p "$OUT"
mapfile -t protos < <(cd proto && find herald -name '*.proto' | LC_ALL=C sort)
"$PY" -m grpc_tools.protoc \
  -I proto -I third_party/googleapis \
  --python_out="$OUT" --pyi_out="$OUT" --grpc_python_out="$OUT" \
  "${protos[@]}"
# The descriptor set also carries google.rpc.Status and ErrorInfo, so Envoy's transcoder can
# render the rich error details the core attaches (convert_grpc_status).
"$PY" -m grpc_tools.protoc \
  -I proto -I third_party/googleapis \
  --include_imports --include_source_info --descriptor_set_out="$OUT/herald.binpb" \
  "${protos[@]}" google/rpc/error_details.proto google/rpc/status.proto
# Regular packages (not namespace packages) so setuptools and mypy find them.
find "$OUT/herald" -type d -exec sh -c 'for d; do : > "$d/__init__.py"; done' _ {} +
