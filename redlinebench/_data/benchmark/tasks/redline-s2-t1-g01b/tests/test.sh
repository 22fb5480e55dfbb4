#!/usr/bin/env bash
# Verifier entry point of a RedlineBench task: grades the agent's redline against tests/rubrics.json
# (validity gate, judge panel, reward) and writes reward.txt and grade.json to the log directory.
# Runs in place from the task tree; `redlinebench export harbor` writes the container variant.
set -euo pipefail
TASK_DIR="${REDLINEBENCH_TASK_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
OUTPUT="${REDLINEBENCH_OUTPUT:-/app/contract.docx}"
LOGS="${REDLINEBENCH_LOGS_DIR:-/logs/verifier}"
mkdir -p "$LOGS"
exec redlinebench verify --task-dir "$TASK_DIR" --output "$OUTPUT" --logs "$LOGS" \
  --judges "${REDLINEBENCH_JUDGES:-panel}"
