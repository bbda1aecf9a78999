#!/usr/bin/env bash
# Quick start: set up, then serve the API with workers on http://localhost:8080 (SQLite and local
# disk under ./data). On first start it prints an API key and writes it to ./data/initial-api-key.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node dist/cli/main.js serve
