// Command porcupine-compare checks partkit's benchmark histories and the Jepsen etcd logs of
// Porcupine's test data with Porcupine (github.com/anishathalye/porcupine), asserts each verdict
// against the expected one, and times each history: warm-up rounds, then measured rounds, per
// history the median and the best of the measured rounds, printed as TSV.
//
// Semantics (Knossos' cas-register, as partkit checks these histories by default):
//   - read, write of n, cas [old new] on one register whose initial value is nil;
//   - an :ok read of nil constrains nothing (Knossos' reading of nil);
//   - a :fail operation did not happen: it is left out of the history;
//   - an :info operation (crashed: took effect at some point after its invocation, or never)
//     becomes an operation whose return time is +infinity (math.MaxInt64) and whose output is
//     "unknown": its read constrains nothing, its write may take effect at any point after the
//     call, its cas takes effect if the register holds old at the chosen point and is a no-op
//     otherwise. "Never" is the same as "at the very end", which the infinite return allows;
//   - an invocation without completion at the end of the history is treated as :info;
//   - the values of an :ok completion replace those of its invocation (Knossos does the same);
//   - with keys (harness-style histories), Porcupine's Partition splits the history per key,
//     which is what partkit does too.
//
// Times are event positions in the history, so every call and return has its own time, which
// is the real-time order Knossos and partkit use.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

const nilValue = math.MinInt64

type input struct {
	f    byte // 'r', 'w', 'c'
	a, b int64
}

type output struct {
	v       int64 // nilValue for nil
	unknown bool
}

var casRegister = porcupine.Model{
	Init: func() interface{} { return int64(nilValue) },
	Step: func(state, in, out interface{}) (bool, interface{}) {
		s := state.(int64)
		i := in.(input)
		o := out.(output)
		switch i.f {
		case 'r':
			return o.unknown || o.v == nilValue || o.v == s, s
		case 'w':
			return true, i.a
		default: // cas
			if s == i.a {
				return true, i.b
			}
			return o.unknown, s
		}
	},
	Equal: func(a, b interface{}) bool { return a == b }, // v0.1.0's ShallowEqual, gone since v0.1.1
}

// event is one line of partkit's exported JSON.
type event struct {
	P json.RawMessage `json:"p"`
	T string          `json:"t"`
	F string          `json:"f"`
	V json.RawMessage `json:"v"`
	K json.RawMessage `json:"k"`
}

type exported struct {
	Name     string  `json:"name"`
	Expected string  `json:"expected"`
	Events   []event `json:"events"`
}

type history struct {
	corpus, name string
	valid        bool
	ops          []porcupine.Operation
	keyed        bool
}

// value parses null, n or [a b] (JSON or EDN spelling) into (a, b).
func value(s string) (int64, int64, error) {
	s = strings.TrimSpace(s)
	if s == "null" || s == "nil" || s == "" {
		return nilValue, 0, nil
	}
	if strings.HasPrefix(s, "[") {
		parts := strings.FieldsFunc(strings.Trim(s, "[]"), func(r rune) bool { return r == ',' || r == ' ' })
		if len(parts) != 2 {
			return 0, 0, fmt.Errorf("bad cas value %q", s)
		}
		a, _, err := value(parts[0])
		if err != nil {
			return 0, 0, err
		}
		b, _, err2 := value(parts[1])
		return a, b, err2
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, 0, err
}

type pending struct {
	call int64
	f    string
	v    string
	key  string
}

// builder pairs invocations and completions per process into Porcupine operations.
type builder struct {
	open  map[string]pending
	ops   []porcupine.Operation
	keys  map[string]int
	index int64
}

func newBuilder() *builder {
	return &builder{open: map[string]pending{}, keys: map[string]int{}}
}

func (b *builder) add(proc, typ, f, v, key string) error {
	t := b.index
	b.index++
	switch typ {
	case "invoke":
		b.open[proc] = pending{t, f, v, key}
		return nil
	case "ok", "fail", "info":
	default:
		return fmt.Errorf("unknown type %q", typ)
	}
	p, ok := b.open[proc]
	if !ok {
		return fmt.Errorf("completion without invocation: process %s", proc)
	}
	delete(b.open, proc)
	if typ == "fail" {
		return nil
	}
	if typ == "ok" {
		return b.op(p, v, t, false)
	}
	return b.op(p, p.v, math.MaxInt64, true)
}

func (b *builder) op(p pending, v string, ret int64, unknown bool) error {
	a, c, err := value(v)
	if err != nil {
		return err
	}
	var in input
	out := output{v: nilValue, unknown: unknown}
	switch p.f {
	case "read":
		in = input{f: 'r'}
		out.v = a
	case "write":
		in = input{f: 'w', a: a}
	case "cas":
		in = input{f: 'c', a: a, b: c}
	default:
		return fmt.Errorf("unknown f %q", p.f)
	}
	k, ok := b.keys[p.key]
	if !ok {
		k = len(b.keys)
		b.keys[p.key] = k
	}
	b.ops = append(b.ops, porcupine.Operation{ClientId: k, Input: in, Call: p.call, Output: out, Return: ret})
	return nil
}

// finish turns invocations left open into :info operations.
func (b *builder) finish() error {
	procs := make([]string, 0, len(b.open))
	for proc := range b.open {
		procs = append(procs, proc)
	}
	sort.Strings(procs)
	for _, proc := range procs {
		p := b.open[proc]
		if err := b.op(p, p.v, math.MaxInt64, true); err != nil {
			return err
		}
	}
	b.open = map[string]pending{}
	return nil
}

// byKey partitions by key; the key's number is kept in ClientId, which Porcupine only uses for
// visualization.
func byKey(h []porcupine.Operation) [][]porcupine.Operation {
	m := map[int][]porcupine.Operation{}
	var order []int
	for _, o := range h {
		if _, ok := m[o.ClientId]; !ok {
			order = append(order, o.ClientId)
		}
		m[o.ClientId] = append(m[o.ClientId], o)
	}
	out := make([][]porcupine.Operation, 0, len(order))
	for _, k := range order {
		out = append(out, m[k])
	}
	return out
}

func readJSON(corpus, file string) ([]history, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var xs []exported
	if err := json.Unmarshal(data, &xs); err != nil {
		return nil, err
	}
	var out []history
	for _, x := range xs {
		b := newBuilder()
		for _, e := range x.Events {
			if err := b.add(string(e.P), e.T, e.F, string(e.V), string(e.K)); err != nil {
				return nil, fmt.Errorf("%s: %v", x.Name, err)
			}
		}
		if err := b.finish(); err != nil {
			return nil, err
		}
		out = append(out, history{corpus, x.Name, x.Expected == "valid", b.ops, len(b.keys) > 1})
	}
	return out, nil
}

// readEtcd reads the Jepsen etcd logs listed in EXPECTED.tsv with format jepsen-etcd-log. A line
// is "INFO  jepsen.util - PROCESS :TYPE :F VALUE" (tabs or spaces; a cas value is "[old new]").
func readEtcd(dir string) ([]history, error) {
	f, err := os.Open(filepath.Join(dir, "EXPECTED.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []history
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 || cols[1] != "jepsen-etcd-log" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, cols[0]))
		if err != nil {
			return nil, err
		}
		b := newBuilder()
		for _, line := range strings.Split(string(data), "\n") {
			i := strings.Index(line, "jepsen.util - ")
			if i < 0 {
				continue
			}
			fs := strings.Fields(line[i+len("jepsen.util - "):])
			if len(fs) < 3 {
				continue
			}
			typ := strings.TrimPrefix(fs[1], ":")
			fn := strings.TrimPrefix(fs[2], ":")
			if err := b.add(fs[0], typ, fn, strings.Join(fs[3:], " "), ""); err != nil {
				return nil, fmt.Errorf("%s: %v", cols[0], err)
			}
		}
		if err := b.finish(); err != nil {
			return nil, err
		}
		if len(b.ops) == 0 {
			continue // etcd_095.log is empty
		}
		out = append(out, history{"etcd", filepath.Base(cols[0]), cols[2] == "linearizable", b.ops, false})
	}
	return out, sc.Err()
}

func check(h history) bool {
	if h.keyed {
		m := casRegister
		m.Partition = byKey
		return porcupine.CheckOperations(m, h.ops)
	}
	return porcupine.CheckOperations(casRegister, h.ops)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func main() {
	small := flag.String("small", "", "partkit's small corpus, JSON (ExportHistories)")
	scale := flag.String("scale", "", "partkit's larger histories, JSON (ExportHistories)")
	etcd := flag.String("etcd", "", "directory with EXPECTED.tsv and test_data/jepsen/etcd_*.log")
	warmup := flag.Int("warmup", 100, "warm-up rounds")
	rounds := flag.Int("rounds", 30, "measured rounds")
	only := flag.String("only", "", "time only the history of this name (cold runs: -warmup 0 -rounds 1)")
	flag.Parse()

	var hs []history
	for _, src := range []struct{ corpus, file string }{{"small", *small}, {"scale", *scale}} {
		if src.file == "" {
			continue
		}
		xs, err := readJSON(src.corpus, src.file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		hs = append(hs, xs...)
	}
	if *etcd != "" {
		xs, err := readEtcd(*etcd)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		hs = append(hs, xs...)
	}
	if *only != "" {
		var kept []history
		for _, h := range hs {
			if h.name == *only {
				kept = append(kept, h)
			}
		}
		if len(kept) == 0 {
			fmt.Fprintf(os.Stderr, "no history named %q\n", *only)
			os.Exit(2)
		}
		hs = kept
	}
	// Rounds go over the files of one corpus at a time (as SmallCorpusTiming and CorpusTiming do).
	times := make([][]int64, len(hs))
	for i := range hs {
		times[i] = make([]int64, 0, *rounds)
	}
	wrong := 0
	start := 0
	for start < len(hs) {
		end := start
		for end < len(hs) && hs[end].corpus == hs[start].corpus {
			end++
		}
		w, r := *warmup, *rounds
		if hs[start].corpus == "scale" { // large histories: fewer rounds, as CompareTiming
			w, r = min(w, scaleWarmup), min(r, scaleRounds)
		}
		for round := 0; round < w+r; round++ {
			for i := start; i < end; i++ {
				t0 := time.Now()
				ok := check(hs[i])
				d := time.Since(t0).Nanoseconds()
				if ok != hs[i].valid {
					if round == 0 {
						fmt.Fprintf(os.Stderr, "VERDICT MISMATCH %s/%s: expected valid=%v, Porcupine says %v\n",
							hs[i].corpus, hs[i].name, hs[i].valid, ok)
						wrong++
					}
				}
				if round >= w {
					times[i] = append(times[i], d)
				}
			}
		}
		start = end
	}
	fmt.Printf("# porcupine %s, GOMAXPROCS %d, warm-up %d, rounds %d, load %s\n",
		runtime.Version(), runtime.GOMAXPROCS(0), *warmup, *rounds, loadavg())
	fmt.Println("corpus\tname\texpected\tops\tmedian_ns\tbest_ns")
	for i, h := range hs {
		t := append([]int64(nil), times[i]...)
		sort.Slice(t, func(a, b int) bool { return t[a] < t[b] })
		exp := "valid"
		if !h.valid {
			exp = "invalid"
		}
		fmt.Printf("%s\t%s\t%s\t%d\t%d\t%d\n", h.corpus, h.name, exp, len(h.ops), t[len(t)/2], t[0])
	}
	if wrong > 0 {
		fmt.Fprintf(os.Stderr, "%d verdicts differ from the expected ones\n", wrong)
		os.Exit(1)
	}
}

// scaleWarmup and scaleRounds cap the warm-up and the measured rounds of the larger histories
// (CompareTiming's SCALE_WARMUP and SCALE_ROUNDS): the JVM's JIT reaches its plateau on them after
// about 25 rounds on 2 cores, so both sides warm up for 40, which costs Porcupine about a minute.
const (
	scaleWarmup = 40
	scaleRounds = 10
)

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
