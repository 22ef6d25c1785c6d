import Foundation
import IsobarCore
import IsobarStdio

/// What `fetch` does with its stdin: it answers resync requests and nothing else.
///
/// fetch is a source. On the bus its stdin carries what `plug` subscribed it to; if it passed those
/// messages through, `plug` would publish them again and every message would echo around the bus.
/// So a well-formed message of any other type is dropped silently, a resync WITH a `client` is left
/// to the filter, and a line that is not a message at all gets the usual one `error` line.
public enum FetchInput {
    public enum Action: Sendable, Equatable {
        /// A resync without a client: republish the latest snapshots.
        case resync(reason: String)
        /// A valid message fetch does not handle.
        case ignore
        /// A bad line: publish this error.
        case error(ErrorMessage)
    }

    /// Classifies one stdin line.
    public static func action(for line: UnsafeRawBufferPointer) -> Action {
        let object: JSONObject
        do {
            object = try JSONObject(parsing: line)
        } catch {
            return .error(ErrorMessage(stage: "fetch", message: "not a JSON object: \(error)", line: line, code: .notJSON))
        }
        guard let typeField = object.field("type"), let type = object.string(typeField), !type.isEmpty else {
            return .error(ErrorMessage(stage: "fetch", message: "missing string field \"type\"", line: line, code: .fieldMissing))
        }
        guard type == "resync" else { return .ignore }
        do {
            let resync = try Resync(from: object)
            return resync.client == nil ? .resync(reason: resync.reason) : .ignore
        } catch {
            return .error(ErrorMessage(stage: "fetch", message: "bad resync: \(error)", line: line))
        }
    }

    /// Reads NDJSON from `fd` on a dedicated thread (a blocking read must not occupy one of the two
    /// cooperative threads) and calls `resync` for each resync request. Errors go to `output`.
    ///
    /// The thread is there for one blocking C call: `read(2)` on stdin (``LineInput``, which waits in
    /// `poll(2)` on it with no timeout). stdin is whatever the parent gave (a pipe under `plug`, a
    /// file, a terminal), so a non-blocking async reader would need its own event source for each.
    /// End of input ends the thread and nothing else: a closed stdin is normal in a pipe.
    public static func start(fd: Int32 = 0, output: any FetchOutput, maxLineLength: Int = Limits.lineBytes,
                             resync: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var writer = JSONWriter(capacity: 4096)
            LineInput.run(fd: fd, maxLineLength: maxLineLength,
                          line: { line in
                              switch action(for: line) {
                              case .resync(let reason): resync(reason)
                              case .ignore: break
                              case .error(let error): error.write(to: &writer)
                              }
                          },
                          tooLong: { length, excerpt in
                              ErrorMessage(stage: "fetch", message: "line of \(length) bytes exceeds the \(maxLineLength)-byte limit; skipped",
                                           excerpt: excerpt, code: .lineTooLong).write(to: &writer)
                          },
                          drained: {
                              if !writer.bytes.isEmpty {
                                  output.write(&writer)
                                  output.flush()
                              }
                          })
        }
        thread.name = "isobar-fetch-stdin"
        thread.start()
    }
}
