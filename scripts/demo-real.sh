#!/usr/bin/env bash
# make demo-real: the seed flow ending in real containers. converge up runs
# three nodes on a private containerd, the echo image is built and
# imported with no registry, kubectl applies examples/echo.yaml, and curl
# reaches the pods through the Service's clusterIP (the userspace
# kube-proxy). Needs root, containerd, runc and kubectl.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
for bin in containerd runc kubectl curl; do
  command -v "$bin" >/dev/null || { echo "demo-real needs $bin (apt-get install -y containerd runc)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "demo-real runs containers: it needs root"; exit 1; }

dir=$(mktemp -d /tmp/cvg-demo-XXXX) # short: unix socket paths are limited
up_pid=
cleanup() {
  [ -n "$up_pid" ] && kill -TERM "$up_pid" 2>/dev/null && wait "$up_pid" || true
  rm -rf "$dir"
}
trap cleanup EXIT

echo "== building converge and the echo image (no registry)"
$GO build -o "$dir/converge" ./cmd/converge
"$dir/converge" image build -o "$dir/echo.tar"

echo "== converge up --runtime containerd --nodes 3"
"$dir/converge" up --runtime containerd --nodes 3 --data-dir "$dir/data" \
  --listen 127.0.0.1:0 --import "$dir/echo.tar" --tick 500ms > >(grep --line-buffered -v ': heartbeat ') 2>&1 &
up_pid=$!
export KUBECONFIG=$dir/data/kubeconfig
for _ in $(seq 100); do [ -f "$KUBECONFIG" ] && break; sleep 0.2; done
[ -f "$KUBECONFIG" ] || { echo "converge up did not start"; exit 1; }

echo "== kubectl apply -f examples/echo.yaml"
kubectl apply -f examples/echo.yaml
kubectl rollout status deployment/echo --timeout=60s
kubectl get pods -o wide
kubectl get svc echo
ip=$(kubectl get svc echo -o jsonpath='{.spec.clusterIP}')

echo "== curl http://$ip/ through the kube-proxy, six times"
for _ in 1 2 3 4 5 6; do curl -s "http://$ip/"; done

echo "== kubectl delete -f examples/echo.yaml"
kubectl delete -f examples/echo.yaml
kill -TERM "$up_pid"; wait "$up_pid" || true; up_pid=
echo "== done: converge up stopped its containerd and removed every container"
