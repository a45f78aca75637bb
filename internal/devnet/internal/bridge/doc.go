// Package bridge wires the devnet's cross-chain plumbing: given the network's chains it
// builds each chain's IBC module (consistent channel pairs L1 ↔ every other chain), the
// OPinit modules (bridge N on L1 ↔ the N-th rollup), the relayer/executor configuration,
// the hook runners, and the registry metadata the router reads (op_bridge_id,
// ibc_channels, asset traces). The modules live in bridge/ibc and bridge/opinit, the
// bots in bridge/relayer.
//
// Wiring into the engine (internal/devnet does this for the devnet; TestOnEngine is a
// complete, running example on bare engine chains):
//
//  1. relKey, exKey := BotKeys(seed, cosmosKeys); every rollup's ChainSpec.Executor is
//     exKey's bech32 address.
//  2. runners := one NewHookRunner(chainID) per chain (optional), passed as
//     Options.DepositHooks / Options.IBCHooks; Options.Withdrawals is an
//     opinit.ChildWithdrawals over the rollups' latest state.
//  3. net := Wire(specs, opts); for each chain: engine modules += net.Chain(id).Modules(),
//     engine.Config.ExtraAccounts += BotAccounts(feeDenom, relKey, exKey), and the
//     chain's Registry goes into its chain.json; then runner.AddModules(all the chain's
//     modules) so hooks reach the VMs.
//  4. rel := relayer.New(net.RelayerConfig(endpoints)) with one
//     relayer.NewEngineChain(chain, relKey, exKey) endpoint per chain; call rel.Step(ctx)
//     after each block (or rel.Run(ctx, interval) in a goroutine).
//  5. Optionally serve opinit.ExecutorAPI(bridgeID, latestL2State) per rollup and put
//     its URL in the rollup's metadata.executor_uri.
package bridge
