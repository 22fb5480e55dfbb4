#!/usr/bin/env bash
# Harbor verifier entry point for a RedlineBench task.
# Grades the agent's redline (/app/contract.docx) against /tests/rubrics.json with the judge panel,
# writes the reward to /logs/verifier/reward.txt and the full grade to /logs/verifier/grade.json.
set -euo pipefail
OUTPUT="${REDLINEBENCH_OUTPUT:-/app/contract.docx}"
LOGS="${REDLINEBENCH_LOGS:-/logs/verifier}"
mkdir -p "$LOGS"
if ! command -v redlinebench >/dev/null 2>&1; then
  echo "redlinebench is not installed in the verifier image; reward 0" >&2
  echo 0 > "$LOGS/reward.txt"
  exit 0
fi
exec redlinebench verify --tests-dir /tests --output "$OUTPUT" --logs-dir "$LOGS"
