package fleet

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// chainLabel names the chain of every series a chain's registry contributes to the fleet's
// /metrics. The fleet's own series carry none; their names cannot meet a chain's (the fleet's
// routes are rollgate_indexer_fleet_*, a chain's API rollgate_indexer_api_*, and the Go and
// process collectors are only in the fleet's registry), so one scrape of /metrics has both.
const chainLabel = "chain_id"

// gatherChains gathers every running chain's registry, each series labelled with its chain.
// The set is read per scrape: a chain added shows at once, a removed chain's series are gone
// with it, and a restarted pipeline's metrics are whatever it registered again
// (scopedRegisterer). One chain's gather error is reported with the rest still gathered.
func (f *Fleet) gatherChains() ([]*dto.MetricFamily, error) {
	f.mu.RLock()
	gs := make(prometheus.Gatherers, 0, len(f.chains))
	for id, r := range f.chains {
		gs = append(gs, labelled{id: id, g: r.reg})
	}
	f.mu.RUnlock()
	return gs.Gather()
}

// labelled is a chain's registry with chain_id=id added to every series.
type labelled struct {
	id string
	g  prometheus.Gatherer
}

func (l labelled) Gather() ([]*dto.MetricFamily, error) {
	mfs, err := l.g.Gather()
	name, value := chainLabel, l.id
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			// A fresh slice: the gathered metric may share its labels with the collector.
			labels := make([]*dto.LabelPair, 0, len(m.Label)+1)
			for _, lp := range m.Label {
				if lp.GetName() != chainLabel {
					labels = append(labels, lp)
				}
			}
			labels = append(labels, &dto.LabelPair{Name: &name, Value: &value})
			sort.Slice(labels, func(i, j int) bool { return labels[i].GetName() < labels[j].GetName() })
			m.Label = labels
		}
	}
	return mfs, err
}
