module fiber.bench/peers/go

go 1.19
