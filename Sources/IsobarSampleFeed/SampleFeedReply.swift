import NIOHTTP1
import IsobarNet

/// What the sample feed sends for one request, decided without any I/O (see `SampleFeedResponder`)
/// and then carried out on the connection.
public struct SampleFeedReply: Sendable {
    public enum Kind: Sendable {
        /// A complete response.
        case full(HTTPResponseStatus, HTTPHeaders, [UInt8])
        /// A 200 whose body is sent in pieces spread over `seconds`.
        case slow(HTTPHeaders, [UInt8], seconds: Double)
        /// A 200 that declares the full length, sends the first half, then closes.
        case truncated(HTTPHeaders, [UInt8])
        /// A 200 streamed in chunks (no Content-Length) for `bytes` bytes.
        case stream(HTTPHeaders, bytes: Int)
        /// Close the connection without answering.
        case drop
    }

    public var kind: Kind
    /// Seconds to wait before starting the response.
    public var delay: Double
    /// The fault that shaped this reply, for the log line (nil for a normal answer).
    public var fault: SampleFeedFault?

    public init(_ kind: Kind, delay: Double = 0, fault: SampleFeedFault? = nil) {
        self.kind = kind
        self.delay = delay
        self.fault = fault
    }

    /// The status line's code, for logs (0 for a dropped connection).
    public var statusCode: Int {
        switch kind {
        case .full(let status, _, _): Int(status.code)
        case .slow, .truncated, .stream: 200
        case .drop: 0
        }
    }
}
