#!/usr/bin/env bash
# The one-command demo: installs what is missing (scripts/setup.sh), builds the index, the widget
# and the book (scripts/build-site.sh), then serves the book and the chat API from one proxy at
# http://127.0.0.1:${PORT:-8080} until stopped (Ctrl+C).
#   No LLM_BASE_URL: answers are excerpts from the book (extractive), with citations.
#   LLM_BASE_URL (+ LLM_API_KEY, LLM_MODEL) of an OpenAI-compatible server: full answers.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8080}"
case "$PORT" in
  ''|*[!0-9]*) echo "PORT must be a number (got '$PORT')" >&2; exit 2 ;;
esac

bash scripts/setup.sh
bash scripts/build-site.sh

# The proxy as an author runs it: the package's `book-chat-proxy` (the platform package's binary).
PROXY="www/node_modules/.bin/book-chat-proxy"
if [ -n "${LLM_BASE_URL:-}" ]; then
  # The proxy requires a model name with a base URL; a local server often ignores it.
  export LLM_MODEL="${LLM_MODEL:-default}"
  echo "LLM: $LLM_BASE_URL (model $LLM_MODEL${LLM_API_KEY:+, key set}) — full answers"
else
  echo "No LLM_BASE_URL: the assistant answers with excerpts from the book (extractive)."
fi
echo
echo "The book: http://127.0.0.1:$PORT/   (a chapter: http://127.0.0.1:$PORT/docs/intro)"
echo "Stop with Ctrl+C."
# The proxy reads LLM_BASE_URL, LLM_API_KEY and LLM_MODEL from the environment (never from flags,
# which show in `ps`); exec so Ctrl+C and SIGTERM reach it (the wrapper passes them on) and it shuts down cleanly.
exec "$PROXY" --listen "127.0.0.1:$PORT" --site www/build
