// IsobarCore
