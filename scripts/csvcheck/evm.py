# evm.py INDEXER RPC REST JSONRPC H1 H2 ADDR...: as bank.py, on an EVM rollup: each
# fungible row keyed by its token contract (a bank denom's by /minievm/evm/v1/contracts/by_denom),
# the balance change read with eth_call balanceOf at blocks H1-1 and H2.
import csv, io, json, sys, urllib.parse, urllib.request
idx, rpc, rest, jrpc, h1, h2 = sys.argv[1:5] + [int(sys.argv[5]), int(sys.argv[6])]
def get(url):
    with urllib.request.urlopen(url) as r:
        return r.read().decode()
def call(method, params):
    req = urllib.request.Request(jrpc, data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        j = json.loads(r.read())
    if "error" in j:
        raise RuntimeError(j["error"])
    return j["result"]
def btime(h):
    return json.loads(get(f"{rpc}/block?height={h}"))["result"]["block"]["header"]["time"]
contracts = {}
def contract_of(denom):
    if denom not in contracts:
        contracts[denom] = json.loads(get(f"{rest}/minievm/evm/v1/contracts/by_denom?denom={urllib.parse.quote(denom, safe='')}"))["address"].lower()
    return contracts[denom]
def balance(token, acc, h):
    data = "0x70a08231" + "0" * 24 + acc[2:].lower()
    out = call("eth_call", [{"to": token, "data": data}, hex(h)])
    return int(out, 16) if out != "0x" else 0  # no code there yet: no balance
start, end = btime(h1), btime(h2)
bad = rows_total = 0
for acc in sys.argv[7:]:
    body = get(f"{idx}/indexer/transfer/v1/transfers/by_account/{acc}?format=csv&start_time={urllib.parse.quote(start)}&end_time={urllib.parse.quote(end)}")
    rows = list(csv.DictReader(io.StringIO(body)))
    rows_total += len(rows)
    got = {}
    for r in rows:
        if r["token_id"]:
            continue
        k = (r["contract"] or contract_of(r["denom"])).lower()
        got[k] = got.get(k, 0) + int(r["delta"])
    want = {k: balance(k, acc, h2) - balance(k, acc, h1 - 1) for k in got}
    ok = all(got[k] == want[k] for k in got)
    bad += not ok
    print(f"{acc} rows={len(rows)} {'OK' if ok else 'MISMATCH'} " + " ".join(f"{k[:10]}:csv={got[k]},chain={want[k]}" for k in sorted(got)))
print(f"heights {h1}..{h2} ({start} .. {end}): {len(sys.argv)-7} accounts, {rows_total} CSV rows, {bad} mismatches (tokens the CSV names, read with balanceOf)")
sys.exit(1 if bad else 0)
