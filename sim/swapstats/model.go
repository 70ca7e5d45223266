package swapstats

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Networks the simulated service knows, in the order the real one lists them.
var Networks = []string{"bsc", "avax", "fantom", "polygon", "arbitrum", "optimism"}

// Periods accepted by both endpoints; "1m" is the default.
var Periods = []string{"1d", "1w", "1m", "3m", "1y", "all"}

// periodDays is the number of complete days a daily period covers; "all"
// (absent) covers every day since the network's launch.
var periodDays = map[string]int{"1w": 7, "1m": 30, "3m": 90, "1y": 365}

// profile is what makes one network's series look like itself: its launch
// day and the levels its random walks revert to.
type profile struct {
	launch    time.Time
	volumeUSD float64 // typical daily volume
	tvlUSD    float64 // typical liquidity, for the turnover rate
	tradeUSD  float64 // typical trade size
}

var profiles = map[string]profile{
	"bsc":      {day(2021, 10, 25), 18e6, 9e6, 2400},
	"avax":     {day(2022, 2, 1), 2.5e6, 2.2e6, 1800},
	"fantom":   {day(2022, 3, 1), 0.6e6, 0.9e6, 900},
	"polygon":  {day(2022, 4, 12), 3.2e6, 2.5e6, 1100},
	"arbitrum": {day(2022, 9, 1), 7.5e6, 4.0e6, 2100},
	"optimism": {day(2022, 10, 3), 1.9e6, 1.6e6, 1500},
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// micro is one millionth of a USD: volumes are generated as int64 micro-USD
// so that sums are exact; on the wire they become USD x 10^18 by appending
// twelve zeros.
const microPerUSD = 1_000_000

// dayStat is one complete UTC day of a network.
type dayStat struct {
	start    int64 // unix seconds, 00:00 UTC
	volume   int64 // micro-USD
	traders  int64
	txs      int64
	turnover int64 // turnover rate in 1/10^4 percent (4 decimals)
}

// hourStat is one complete hour.
type hourStat struct {
	start   int64
	volume  int64
	traders int64
	txs     int64
}

// series holds one network's days, generated lazily from its launch onwards
// and extended as the clock moves; everything derives from (seed, network)
// only, so two servers with the same seed serve the same numbers.
type series struct {
	mu      sync.Mutex
	prof    profile
	pcg     *rand.PCG
	rng     *rand.Rand
	logVol  float64 // state of the volume walk (log of the level)
	logTVL  float64
	logSize float64
	days    []dayStat
	seed    uint64
}

func newSeries(seed int64, network string) *series {
	p := profiles[network]
	h := fnv.New64a()
	h.Write([]byte(network))
	s := uint64(seed) ^ h.Sum64()
	pcg := rand.NewPCG(s, 0x5eed5eed)
	return &series{
		prof:    p,
		pcg:     pcg,
		rng:     rand.New(pcg),
		logVol:  math.Log(p.volumeUSD) - 0.6, // young networks start smaller
		logTVL:  math.Log(p.tvlUSD) - 0.4,
		logSize: math.Log(p.tradeUSD),
		seed:    s,
	}
}

// upTo returns the complete days that ended at or before end (unix seconds).
// The returned slice is shared and must not be modified.
func (s *series) upTo(end int64) []dayStat {
	s.mu.Lock()
	defer s.mu.Unlock()
	launch := s.prof.launch.Unix()
	for {
		next := launch + int64(len(s.days))*86400
		if next+86400 > end {
			break
		}
		s.days = append(s.days, s.nextDay(next))
	}
	n := len(s.days)
	// The clock may move backwards in tests: never serve days from its future.
	for n > 0 && s.days[n-1].start+86400 > end {
		n--
	}
	return s.days[:n:n]
}

// nextDay advances the walks by one day: mean-reverting log random walks for
// volume, liquidity and trade size, a weekly rhythm (quieter weekends) and
// rare bursts, as real swap volume has.
func (s *series) nextDay(start int64) dayStat {
	r := s.rng
	target := math.Log(s.prof.volumeUSD)
	s.logVol += 0.04*(target-s.logVol) + r.NormFloat64()*0.16
	// Liquidity follows volume slowly (LPs chase fees), so turnover stays plausible.
	s.logTVL += 0.05*(s.logVol+math.Log(s.prof.tvlUSD/s.prof.volumeUSD)-s.logTVL) + r.NormFloat64()*0.03
	s.logSize += 0.1*(math.Log(s.prof.tradeUSD)-s.logSize) + r.NormFloat64()*0.06

	weekly := [7]float64{0.78, 1.05, 1.08, 1.1, 1.06, 1.02, 0.82} // Sunday first
	wd := time.Unix(start, 0).UTC().Weekday()
	vol := math.Exp(s.logVol) * weekly[wd]
	if r.Float64() < 0.03 {
		vol *= 1.8 + 2*r.Float64() // a burst: listing, incident, airdrop
	}
	size := math.Exp(s.logSize)
	txs := int64(vol/size) + 1
	traders := int64(float64(txs)/(2.2+r.Float64())) + 1
	if traders > txs {
		traders = txs
	}
	volume := int64(vol * microPerUSD)
	tvl := math.Exp(s.logTVL)
	turnover := int64(math.Round(float64(volume) / microPerUSD / tvl * 100 * 1e4))
	return dayStat{start: start, volume: volume, traders: traders, txs: txs, turnover: turnover}
}

// hours splits one day into its 24 hours: volume and trades sum exactly to
// the day's, hourly traders never exceed hourly trades, and the day's traders
// lie between the busiest hour's and the sum over hours (addresses come back).
func (s *series) hours(d dayStat) [24]hourStat {
	r := rand.New(rand.NewPCG(s.seed^uint64(d.start), 0x40))
	var w [24]float64
	total := 0.0
	for h := range w {
		// Busiest in the European/US overlap, quietest in the Pacific night.
		w[h] = 1 + 0.55*math.Sin(float64(h-8)*math.Pi/12) + 0.35*r.Float64()
		total += w[h]
	}
	vols := split(d.volume, w[:], total)
	txs := split(d.txs, w[:], total)
	var out [24]hourStat
	for h := range out {
		t := txs[h]
		tr := min(t, max(int64(float64(d.traders)*w[h]/total*1.7), min(t, 1)))
		out[h] = hourStat{start: d.start + int64(h)*3600, volume: vols[h], traders: tr, txs: t}
	}
	return out
}

// split divides total into len(w) integer parts proportional to w that sum
// exactly to total (largest remainders get the leftover units).
func split(total int64, w []float64, wsum float64) []int64 {
	parts := make([]int64, len(w))
	rem := make([]float64, len(w))
	var used int64
	for i, x := range w {
		exact := float64(total) * x / wsum
		parts[i] = int64(exact)
		rem[i] = exact - float64(parts[i])
		used += parts[i]
	}
	for left := total - used; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		parts[best]++
		rem[best] = -1
	}
	// Float rounding could leave a unit too many: take it from the largest part.
	for over := used - total; over > 0; over-- {
		big := 0
		for i := range parts {
			if parts[i] > parts[big] {
				big = i
			}
		}
		parts[big]--
	}
	return parts
}
