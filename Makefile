# Everyday tasks. The README's two commands need no make; these are conveniences.
.PHONY: run test generate assets lint bench ci

run:
	bash scripts/deps.sh && go run ./cmd/storefront

test:
	bash scripts/deps.sh && go test -count=1 -timeout 30m ./...

generate:
	go tool templ generate
	go generate ./internal/importer

assets:
	npm install --no-audit --no-fund && npm run build

lint:
	go vet ./...
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
	go tool templ generate && git diff --exit-code -- '*_templ.go'
	go generate ./internal/importer && git diff --exit-code -- internal/importer/wire_gen.go

ci:
	bash .ci/run

# Seeds (or reuses) storefront_bench on STOREFRONT_BENCH_DSN and prints one table; see docs/PERFORMANCE.md.
bench:
	go run ./bench -dsn '$(or $(STOREFRONT_BENCH_DSN),root@tcp(127.0.0.1:3306)/)'

# Three instances on a private MariaDB primary with a replica, behind a proxy (docs/SCALING.md);
# also part of `go test ./...`.
.PHONY: scale
scale:
	go test ./scale -count=1 -v

# Fault tests against the real binary on a private mariadbd: database stopped under load,
# SMTP down, SIGTERM under load, kill -9 during an import, and 10 s of load
# (docs/RELIABILITY.md); also part of `go test ./...`.
.PHONY: faults load
faults:
	go test ./faults -count=1 -v

# Two minutes of mixed traffic from 16 clients on 50,000 purchases; RSS must stay flat
# (docs/RELIABILITY.md). Not part of `go test ./...`.
load:
	go test ./faults -run '^TestLoad$$' -count=1 -v -timeout 15m -args -load.duration=2m -load.purchases=50000 -load.workers=16

# Plans every statement of the web tests with Vitess's planner on 4 shards and fails on
# a request-path statement that reaches more than one (docs/SCALING.md); part of `make ci`.
.PHONY: vtcheck
vtcheck:
	bash scripts/vtcheck.sh
