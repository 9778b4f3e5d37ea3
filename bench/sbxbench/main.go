//go:build linux

// Command sbxbench measures sbx run against its baselines in one run and
// prints medians and ratios (see bench/run.sh):
//
//   - start-up: /bin/true directly, through a minimal Go launcher (the floor
//     for any Go launcher), and through sbx run;
//   - draining: a producer writing N bytes read by sbx run --json (default
//     cap, output discarded) against dd bs=64k reading the same producer's
//     pipe;
//   - peak RSS of sbx while draining, for several output sizes.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"
)

func main() {
	sbx := flag.String("sbx", "sbx", "sbx binary")
	launcher := flag.String("golauncher", "golauncher", "minimal Go launcher binary")
	execLauncher := flag.String("execlauncher", "", "optional launcher running executor.Run only")
	runs := flag.Int("n", 200, "runs per start-up measurement")
	drainRuns := flag.Int("drain-n", 5, "runs per drain measurement")
	drainBytes := flag.Int64("drain-bytes", 1<<30, "bytes drained")
	profile := flag.String("profile", "danger-full-access", "sbx profile")
	flag.Parse()

	sbxRun := []string{*sbx, "run", "--profile", *profile, "--timeout", "10m"}

	fmt.Printf("sbxbench: %d start-up runs, %d drain runs of %d bytes\n\n", *runs, *drainRuns, *drainBytes)

	// Start-up. The three commands are run in turn, so that a change of
	// load on the machine affects them alike.
	argvs := [][]string{{"/bin/true"}, {*launcher, "/bin/true"}, append(slices.Clone(sbxRun), "--", "/bin/true")}
	if *execLauncher != "" {
		argvs = append(argvs, []string{*execLauncher, "/bin/true"})
	}
	startup := interleaved(*runs, argvs...)
	trueDirect, trueGo, trueSbx := startup[0], startup[1], startup[2]
	fmt.Println("start-up (median wall time of one run)")
	fmt.Printf("  /bin/true                     %9s\n", trueDirect.wall)
	fmt.Printf("  golauncher /bin/true          %9s   %.2fx /bin/true\n", trueGo.wall, ratio(trueGo.wall, trueDirect.wall))
	fmt.Printf("  sbx run -- /bin/true          %9s   %.2fx golauncher (target <= 1.20)  %s\n",
		trueSbx.wall, ratio(trueSbx.wall, trueGo.wall), verdict(ratio(trueSbx.wall, trueGo.wall) <= 1.2))
	if *execLauncher != "" {
		e := startup[3]
		fmt.Printf("  executor.Run only /bin/true   %9s   %.2fx golauncher (the executor's share of sbx run)\n", e.wall, ratio(e.wall, trueGo.wall))
	}

	// Draining.
	n := strconv.FormatInt(*drainBytes, 10)
	producer := "head -c " + n + " /dev/zero"
	drains := interleaved(*drainRuns, []string{"/bin/sh", "-c", producer + " | dd bs=64k of=/dev/null 2>/dev/null"},
		append(slices.Clone(sbxRun), "--json", "--", "head", "-c", n, "/dev/zero"))
	dd, drain := drains[0], drains[1]
	ddRate := rate(*drainBytes, dd.wall)
	sbxRate := rate(*drainBytes, drain.wall)
	fmt.Println("\ndraining (median wall time)")
	fmt.Printf("  %s | dd bs=64k   %9s   %7.0f MiB/s\n", producer, dd.wall, ddRate)
	fmt.Printf("  sbx run --json -- %s   %9s   %7.0f MiB/s   %.2fx dd (target >= 0.80)  %s\n",
		producer, drain.wall, sbxRate, sbxRate/ddRate, verdict(sbxRate/ddRate >= 0.8))

	// Peak RSS against output size.
	const limit = 3*(1<<20) + 16<<20 // 3x the default cap + 16 MiB
	fmt.Println("\npeak RSS of sbx run --json (default 1 MiB cap) while draining")
	for _, size := range []int64{1 << 20, 64 << 20, *drainBytes} {
		r := median(*drainRuns, append(slices.Clone(sbxRun), "--json", "--", "head", "-c", strconv.FormatInt(size, 10), "/dev/zero"))
		fmt.Printf("  %10d bytes   %6.1f MiB (limit %.0f MiB)  %s\n", size, float64(r.maxRSS)/(1<<20), float64(limit)/(1<<20), verdict(r.maxRSS < limit))
	}
	for _, retain := range []string{"head-tail"} {
		r := median(*drainRuns, append(slices.Clone(sbxRun), "--json", "--retain", retain, "--", "head", "-c", n, "/dev/zero"))
		fmt.Printf("  %10d bytes   %6.1f MiB (--retain %s, %7.0f MiB/s)  %s\n", *drainBytes, float64(r.maxRSS)/(1<<20), retain, rate(*drainBytes, r.wall), verdict(r.maxRSS < limit))
	}
}

// interleaved runs each argv n times (after one warm-up run each), in
// turn, and returns the median wall time and peak RSS of each.
func interleaved(n int, argvs ...[]string) []sample {
	walls := make([][]time.Duration, len(argvs))
	peaks := make([]int64, len(argvs))
	for i := 0; i <= n; i++ {
		for j, argv := range argvs {
			wall, rss := once(argv)
			if i == 0 {
				continue // warm-up
			}
			walls[j] = append(walls[j], wall)
			peaks[j] = max(peaks[j], rss)
		}
	}
	out := make([]sample, len(argvs))
	for j := range argvs {
		slices.Sort(walls[j])
		out[j] = sample{wall: walls[j][len(walls[j])/2], maxRSS: peaks[j]}
	}
	return out
}

type sample struct {
	wall   time.Duration
	maxRSS int64 // bytes; the maximum over the runs
}

// median runs argv n times (after one warm-up run) and returns the median
// wall time and the peak RSS.
func median(n int, argv []string) sample {
	return interleaved(n, argv)[0]
}

// once runs argv with the output discarded and returns its wall time and
// peak RSS in bytes.
func once(argv []string) (time.Duration, int64) {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbxbench: %v: %v\n", argv, err)
		os.Exit(1)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// ru_maxrss is in KiB on Linux; for a waited child it covers the
		// child and the descendants it waited for (the maximum, not the
		// sum), so here it is sbx's own peak.
		rss = int64(ru.Maxrss) * 1024
	}
	return wall, rss
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func rate(n int64, d time.Duration) float64 { return float64(n) / (1 << 20) / d.Seconds() }

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}
