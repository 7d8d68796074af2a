extension ShippedProtocols {
    /// Battery Service (GATT Specification Supplement 3.27).
    static let battery = """
    btlog-protocol: 1
    name: Battery
    key: bas
    description: Battery Service - Battery Level
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A19, message: level}
    messages:
      level:
        name: Battery Level
        fields:
          - {name: level, label: Battery level, type: u8, unit: "%"}
        summary: ["{level}%"]
    """
}
