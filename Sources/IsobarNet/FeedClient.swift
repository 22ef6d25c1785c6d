#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1

/// The fetcher's I/O: one GET with AsyncHTTPClient (conditional, time-limited, size-limited, with a
/// bounded redirect policy) or one read of a local file. Holds one `HTTPClient`, which must be shut
/// down with `shutdown()` before the client is released.
public final class FeedClient: Sendable {
    let http: HTTPClient
    let timeout: Double
    let maxBodyBytes: Int
    let maxRedirects: Int
    /// What every request says it is: the software, by name and version.
    public static let userAgent = "isobar-fetch/1 (Isobar weather pipeline)"

    public init(timeout: Double, maxBodyBytes: Int, maxRedirects: Int) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        let limit = TimeAmount.nanoseconds(Int64(min(timeout, 86_400) * 1e9))
        // Cycles are allowed so that a redirect loop is stopped by the one rule that always holds, the
        // count; AHC only ever follows redirects to http and https, never to unix sockets or files.
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: maxRedirects > 0 ? .follow(max: maxRedirects, allowCycles: true) : .disallow,
            timeout: .init(connect: limit, read: limit),
            // gzip and deflate bodies (Content-Encoding) are inflated, never past the body limit:
            // a bomb fails like any body over --max-body-bytes.
            decompression: .enabled(limit: .size(maxBodyBytes)))
        // Retrying a refused connection inside AHC would turn "connection refused" into a timeout and
        // duplicate the fetcher's own backoff.
        configuration.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public convenience init(options: FetchOptions) {
        self.init(timeout: options.timeout, maxBodyBytes: options.maxBodyBytes, maxRedirects: options.maxRedirects)
    }

    /// Releases the HTTP client's connections. Call once, when done fetching.
    public func shutdown() async {
        try? await http.shutdown()
    }

    /// Fetches `source` once, conditionally on `validators`. With `streamingOnX` the body is read as
    /// an onX feed while it arrives (`.parsed`, or `.failed` with the refusal), never held whole.
    public func fetch(_ source: FeedSource, validators: ConditionalValidators, logger: Logger,
                      streamingOnX: Bool = false) async -> FetchResponse {
        switch source {
        case .http(let url): await fetchHTTP(url, validators: validators, logger: logger, streamingOnX: streamingOnX)
        case .file(let path): await fetchFile(path, validators: validators, streamingOnX: streamingOnX)
        }
    }

    /// The request races a timer: AHC's own deadline covers only the response head, and a server that
    /// trickles the body must not hold the fetcher longer than `timeout` either.
    func fetchHTTP(_ url: String, validators: ConditionalValidators, logger: Logger, streamingOnX: Bool = false) async -> FetchResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        // Public services ask each client to name itself (AWC, and api.weather.gov requires it).
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Accept", value: "application/json, application/geo+json;q=0.9, text/csv;q=0.8, */*;q=0.1")
        request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        for header in validators.requestHeaders { request.headers.add(name: header.name, value: header.value) }
        let nanoseconds = Int64(min(timeout, 86_400) * 1e9)
        let deadline = NIODeadline.now() + .nanoseconds(nanoseconds)
        let timeoutReason = "timed out after \(Self.seconds(timeout)) s"
        let request0 = request
        return await withTaskGroup(of: FetchResponse?.self) { group in
            group.addTask { await self.exchange(request0, deadline: deadline, logger: logger, streamingOnX: streamingOnX) }
            group.addTask {
                do { try await Task.sleep(nanoseconds: UInt64(nanoseconds)) } catch { return nil }
                return .failed(timeoutReason)
            }
            var result = FetchResponse.failed("request cancelled")
            while let next = await group.next() {
                if let next { result = next; break }
            }
            group.cancelAll()
            return result
        }
    }

    private func exchange(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger, streamingOnX: Bool) async -> FetchResponse {
        do {
            let response = try await http.execute(request, deadline: deadline, logger: logger)
            let status = response.status
            switch status.code {
            case 304:
                return .notModified
            case 200, 203:
                let declared = response.headers.first(name: "content-length").flatMap(Int.init)
                if let declared, declared > maxBodyBytes {
                    return .failed("body of \(declared) bytes exceeds the \(maxBodyBytes)-byte limit")
                }
                let validators = ConditionalValidators(etag: response.headers.first(name: "etag"),
                                                       lastModified: response.headers.first(name: "last-modified"))
                var body = BodyReader(streamingOnX: streamingOnX, expectedBytes: declared)
                for try await chunk in response.body {
                    guard body.count + chunk.readableBytes <= maxBodyBytes else {
                        return .failed("body exceeds the \(maxBodyBytes)-byte limit; stopped reading")
                    }
                    chunk.withUnsafeReadableBytes { body.append($0) }
                }
                return body.finish(validators)
            case 429, 503:
                let reason = "HTTP \(status.code) \(status.reasonPhrase)"
                guard let seconds = Self.retryAfter(response.headers.first(name: "retry-after")) else { return .failed(reason) }
                return .throttled(reason + " (Retry-After \(Self.seconds(seconds)) s)", retryAfter: seconds)
            case 300..<400:
                let location = response.headers.first(name: "location") ?? "(no Location)"
                return .failed("HTTP \(status.code) redirect to \(location.prefix(200)) not followed: only http(s) targets, at most \(maxRedirects) redirects")
            default:
                return .failed("HTTP \(status.code) \(status.reasonPhrase)")
            }
        } catch {
            return .failed(describe(error))
        }
    }

    /// A one-line reason for a transport error, in the user's terms rather than AHC's.
    func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded: return "timed out after \(Self.seconds(timeout)) s"
            case .readTimeout: return "no data for \(Self.seconds(timeout)) s (read timeout)"
            case .connectTimeout: return "connect timed out after \(Self.seconds(timeout)) s"
            case .redirectLimitReached: return "too many redirects (more than \(maxRedirects))"
            case .redirectCycleDetected: return "redirect cycle detected"
            case .remoteConnectionClosed: return "the server closed the connection before the response was complete"
            case .cancelled: return "request cancelled"
            case .invalidURL, .emptyHost, .emptyScheme: return "invalid URL: \(error)"
            default: return "HTTP client error: \(error)"
            }
        }
        if let error = error as? HTTPParserError {
            return "malformed or truncated HTTP response (\(error))"
        }
        if let error = error as? IOError {
            return "connection failed: \(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))"
        }
        if error is CancellationError { return "request cancelled" }
        if String(reflecting: type(of: error)).hasSuffix("DecompressionError") {
            return "compressed body (Content-Encoding) could not be inflated within the \(maxBodyBytes)-byte limit: \(error)"
        }
        return "request failed: \(error)"
    }

    /// A `Retry-After` of delta-seconds (`120`); nil for none, a negative or non-numeric value, or
    /// an HTTP-date (then the ordinary backoff applies).
    static func retryAfter(_ header: String?) -> Double? {
        guard let header, !header.isEmpty, header.utf8.count <= 10, header.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let seconds = Int(header) else { return nil }
        return Double(seconds)
    }

    public static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}
