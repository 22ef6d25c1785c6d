// IsobarBus
