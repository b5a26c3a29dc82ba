# Sourced by Scripts/soak and Scripts/check-allocations: a local nginx answering
# every GET with the 13-byte body, on HTTP and optionally HTTPS, with keep-alive
# connections that never end on nginx's side.
#
#   start_soak_nginx DIR RAW [PKI_DIR]
# sets nginx_pid, http_port and (with PKI_DIR, made by fiber-test-pki) https_port;
# the caller stops nginx by its PID. Everything listens on 127.0.0.1.

SOAK_BODY='Hello, world!'

start_soak_nginx() {
  local dir=$1 raw=$2 pki=${3:-} peers
  peers="$(dirname "${BASH_SOURCE[0]}")/../Benchmarks/peers"
  http_port=$(python3 "$peers/report.py" free-port)
  https_port=""
  local tls_server=""
  if [ -n "$pki" ]; then
    https_port=$(python3 "$peers/report.py" free-port)
    [ "$http_port" != "$https_port" ] || https_port=$(python3 "$peers/report.py" free-port)
    tls_server="server {
        listen 127.0.0.1:$https_port ssl;
        ssl_certificate $pki/chain.pem;
        ssl_certificate_key $pki/leaf.key;
        location / { return 200 \"$SOAK_BODY\"; }
    }"
  fi
  mkdir -p "$dir/nginx"
  cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
worker_rlimit_nofile 8192;
events { worker_connections 4096; }
http {
    access_log off;
    default_type text/plain;
    server_tokens off;
    keepalive_timeout 300s;
    keepalive_requests 1000000000;
    client_body_temp_path $dir/nginx/client_body;
    proxy_temp_path $dir/nginx/proxy;
    fastcgi_temp_path $dir/nginx/fastcgi;
    uwsgi_temp_path $dir/nginx/uwsgi;
    scgi_temp_path $dir/nginx/scgi;
    ssl_protocols TLSv1.2 TLSv1.3;
    server {
        listen 127.0.0.1:$http_port;
        location / { return 200 "$SOAK_BODY"; }
    }
    $tls_server
}
CONF
  nginx -p "$dir/nginx/" -c "$dir/nginx.conf" -e "$dir/nginx/error.log" >"$raw/nginx.log" 2>&1 &
  nginx_pid=$!
  local _
  for _ in $(seq 50); do
    python3 "$peers/report.py" check "http://127.0.0.1:$http_port/" "${#SOAK_BODY}" 2>/dev/null && return 0
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$dir/nginx/error.log" >&2 2>/dev/null || true
  return 1
}
