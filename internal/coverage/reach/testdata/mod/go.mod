module example.com/reachfix

go 1.26
