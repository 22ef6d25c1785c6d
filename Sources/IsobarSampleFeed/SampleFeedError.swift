import IsobarNet
/// A sample-feed setup problem (missing fixture, bad option, port in use); `description` says what
/// to change.
public struct SampleFeedError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
