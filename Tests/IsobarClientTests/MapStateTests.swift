import Testing
@testable import IsobarClient

@Suite struct MapStateTests {}
