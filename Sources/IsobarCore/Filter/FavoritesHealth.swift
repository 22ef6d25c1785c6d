/// How far the filter can rely on its `FavoritesBacking` for the rest of the run.
///
/// It only ever moves down: a file that failed once is not retried (the operator is told to fix
/// or move it and restart), so the lists in memory are never overwritten by a stale read.
enum FavoritesHealth: Equatable {
    /// Reads and writes work: lists are loaded on demand and every change is stored.
    case healthy
    /// A change could not be stored (a read-only file): lists not yet loaded are still read from
    /// the backing, changes live in memory only, and no list in memory is ever dropped.
    case writesFailing
    /// Reading failed too (a damaged file): memory is all there is.
    case failing
}
