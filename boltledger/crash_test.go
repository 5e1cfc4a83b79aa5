package boltledger_test

func childCrash() error { return nil }
