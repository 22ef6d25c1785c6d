extension AnnotationSet {
    /// Whether ``apply(storage:)`` reads `storage` in one pass (`AnnotationMessageScan`), without
    /// falling back to the general reader. The fallback gives the same outcome and set, only
    /// slower, so no comparison of sets can see it: this lets a check (`isobar-bench counted`'s
    /// cross-check, tests) assert that the formatter's own output is never declined.
    public static func readsInOnePass(_ storage: [UInt8], keepsDetail: Bool = false) -> Bool {
        var upserts: [ScannedItem] = []
        var removes: [ScannedItem.Text] = []
        return storage.withUnsafeBytes {
            AnnotationMessageScan.read($0, keepsDetail: keepsDetail, upserts: &upserts, removes: &removes)
        } != nil
    }
}
