# Sourced by scripts that drive a ferrex node over MCP's Streamable HTTP.
#
# start_http_node BIN [HTTP_SETTINGS...]: starts `BIN node` in a temporary
# home serving HTTP on a free loopback port (each further argument a line
# of its `[http]` section), stops it and removes the home when the script
# exits, and waits until it listens (it loads its model first: up to two
# minutes). Sets `home`, `port`, `pid` and `url`.
start_http_node() {
    local bin=$1
    shift
    home=$(mktemp -d)
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    url="http://127.0.0.1:$port/mcp"
    {
        printf '[network]\nmode = "local"\nbind = "127.0.0.1:0"\n[http]\nbind = "127.0.0.1:%s"\n' "$port"
        for line in "$@"; do
            printf '%s\n' "$line"
        done
    } > "$home/ferrex.toml"
    "$bin" --home "$home" node >/dev/null 2>"$home/node.stderr" &
    pid=$!
    trap stop_http_node EXIT
    for _ in $(seq 1 240); do
        if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
            return 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            cat "$home/node.stderr" >&2
            echo "the node exited before serving HTTP" >&2
            exit 1
        fi
        sleep 0.5
    done
    echo "the node did not serve HTTP within two minutes" >&2
    exit 1
}

stop_http_node() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$home"
}
