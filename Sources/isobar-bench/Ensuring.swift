/// `defer` for async cleanup (a `defer` body cannot `await`): runs `body`, then `cleanup` whether
/// `body` returned or threw. The benchmarks stop their processes with it (`Pipeline.stop`,
/// `Children.stop`, each an `await` on the teardown sequence).
func ensuring<T>(_ body: () async throws -> T, finally cleanup: () async -> Void) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
