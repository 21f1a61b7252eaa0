"""The scaling model of docs/benchmarks.md (issue 42): the predicted
data-parallel efficiency at N ranks, from a rank's measured compute time
per step and the bytes it reduces per step (the precision report's
data_parallel.bytes_per_step), for a ring all-reduce on links of L Gb/s:

    t_comm = 2 (N - 1) / N * bytes / (L / 8)  +  buckets * 2 (N - 1) * alpha
    no overlap:   t / (t + t_comm)
    full overlap: t / max(t, t_comm)

`alpha` is the latency of one ring step (10 us by default). The two
columns bound what overlap with the backward pass achieves: the first
bucket cannot overlap what precedes it.

    python3 bench/data_parallel_scaling.py NAME:SECONDS:BUCKETS:DTYPE=BYTES,...
"""
import argparse


def efficiency(seconds, nbytes, buckets, ranks, gbps, alpha):
    comm = 2 * (ranks - 1) / ranks * nbytes / (gbps / 8 * 1e9) + \
        buckets * 2 * (ranks - 1) * alpha
    return seconds / (seconds + comm), seconds / max(seconds, comm)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+",
                        help="NAME:SECONDS:BUCKETS:DTYPE=BYTES[,DTYPE=BYTES]")
    parser.add_argument("--ranks", default="8,64,512")
    parser.add_argument("--links", default="10,100,400", help="Gb/s")
    parser.add_argument("--alpha", type=float, default=10e-6)
    args = parser.parse_args()
    ranks = [int(n) for n in args.ranks.split(",")]
    print("| model | reduce | link | " + " | ".join(
        "N=%d no overlap / overlap" % n for n in ranks) + " |")
    print("|---|---|---|" + "---|" * len(ranks))
    for spec in args.models:
        name, seconds, buckets, sizes = spec.split(":")
        for size in sizes.split(","):
            dtype, nbytes = size.split("=")
            for gbps in (float(g) for g in args.links.split(",")):
                cells = ["%.0f%% / %.0f%%" % tuple(
                    100 * e for e in efficiency(float(seconds), int(nbytes),
                                                int(buckets), n, gbps,
                                                args.alpha))
                         for n in ranks]
                print("| %s | %s | %g Gb/s | %s |" % (name, dtype, gbps,
                                                      " | ".join(cells)))


if __name__ == "__main__":
    main()
