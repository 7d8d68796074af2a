extension ShippedProtocols {
    /// Environmental Sensing Service (GATT Specification Supplement: Temperature, Humidity,
    /// Pressure).
    static let environmentalSensing = """
    btlog-protocol: 1
    name: Environmental Sensing
    key: ess
    description: Environmental Sensing Service - temperature, humidity, pressure
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A6E, message: temperature}
      - {characteristic: 2A6F, message: humidity}
      - {characteristic: 2A6D, message: pressure}
    messages:
      temperature:
        fields:
          - {name: temperature, label: Temperature, type: s16, scale: 0.01, unit: °C, decimals: 2}
        summary: ["{temperature} °C"]
      humidity:
        fields:
          - {name: humidity, label: Humidity, type: u16, scale: 0.01, unit: "%", decimals: 2}
        summary: ["{humidity}%"]
      pressure:
        fields:
          - {name: pressure, label: Pressure, type: u32, scale: 0.1, unit: Pa, decimals: 1}
        summary: ["{pressure} Pa"]
    """
}
