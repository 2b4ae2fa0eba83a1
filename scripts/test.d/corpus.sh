#!/usr/bin/env bash
# Consistency of corpus/ and tests/mlir/ (file formats, embedded modules, traces present).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/corpus/check_corpus.py
