// IsobarStore
