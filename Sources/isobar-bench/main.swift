print("isobar-bench: see BENCHMARKS.md")
