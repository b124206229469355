package model_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
)

func TestModelProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { properties.Model(t, model.Config{}) })
}
