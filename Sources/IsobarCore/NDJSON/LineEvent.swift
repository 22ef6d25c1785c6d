/// What `LineSplitter` finds in a byte stream.
public enum LineEvent {
    /// One complete line without its terminator (`\n` or `\r\n`) and without a leading UTF-8 BOM.
    /// The buffer is only valid inside the callback.
    case line(UnsafeRawBufferPointer)
    /// A line longer than the limit. It was dropped as it streamed past, never buffered whole.
    case tooLong(length: Int, excerpt: String)
}
