// IsobarNet
