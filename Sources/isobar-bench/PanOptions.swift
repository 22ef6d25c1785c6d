import ArgumentParser

/// How the benchmark's clients pan (`PanPlanner`): the spans of their viewports and the size of each
/// step. Shared by `clients` and `filter-input`, so a recorded filter input walks exactly as the
/// end-to-end benchmark does.
struct PanOptions: ParsableArguments {
    @Option(help: "Smallest latitudeDelta of a pan, degrees (longitudeDelta is 1.25x).")
    var minSpan = 0.5
    @Option(help: "Largest latitudeDelta of a pan, degrees.")
    var maxSpan = 2.0
    @Option(help: "Largest pan step, as a fraction of the span (0.5: jumping around; 0.1: a finger dragging the map).")
    var panStep = 0.5
    @Option(help: "Largest zoom factor of one step (2: jumping around; 1.1: a pinch in progress).")
    var zoomStep = 2.0

    /// Client `index`'s planner for the benchmark's `seed` (each client its own walk).
    func planner(seed: UInt64, client index: Int) -> PanPlanner {
        PanPlanner(seed: seed &+ 10_000 &+ UInt64(index), spans: minSpan...maxSpan, step: panStep, zoom: zoomStep)
    }
}
