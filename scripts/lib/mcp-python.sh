# Sourced by scripts that drive ferrex from the official MCP Python SDK.
#
# mcp_python: installs the SDK (mcp, pinned) into a virtualenv on first use
# and sets `mcp_python` to that virtualenv's python.
MCP_PYTHON_VERSION=2.3.0
mcp_python() {
    local cache="${FERREX_HTTP_CLIENTS_DIR:-$HOME/.cache/ferrex/http-clients}"
    local venv="$cache/venv-mcp-$MCP_PYTHON_VERSION"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_PYTHON_VERSION" >&2
    fi
    mcp_python="$venv/bin/python"
}
