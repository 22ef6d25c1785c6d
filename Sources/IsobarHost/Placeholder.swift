// IsobarHost
